import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lowerBound, SortedKeys } from "./sorted-keys.js";

describe("SortedKeys", () => {
  it("agrees with a sorted set through random adds, removes and reads", () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const keys = new SortedKeys();
    const present = new Set<string>(["b", "d", "f"]);
    keys.reset(["b", "d", "f"]);
    for (let step = 0; step < 5000; step++) {
      const key = `k${random(300)}`;
      // The cache calls add only for absent keys and remove only for present ones.
      if (present.has(key)) {
        keys.remove(key);
        present.delete(key);
      } else {
        keys.add(key);
        present.add(key);
      }
      if (random(10) === 0) assert.deepEqual(keys.keys(), [...present].sort(), `after step ${step}`);
    }
    assert.deepEqual(keys.keys(), [...present].sort());
  });

  it("a key removed and added again before a read is present once", () => {
    const keys = new SortedKeys();
    keys.reset(["a", "b", "c"]);
    keys.remove("b");
    keys.add("b");
    keys.add("bb");
    keys.remove("bb");
    assert.deepEqual(keys.keys(), ["a", "b", "c"]);
  });

  it("keeps key order (UTF-8 bytes), not UTF-16 order, once a key needs it", () => {
    const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    const keys = new SortedKeys();
    keys.reset(["/a/b", "/a/c"]);
    for (const key of ["/a/\u{10000}", "/a/\ue000", "/a/\uffff", "/a/\u{10ffff}", "/a/a", "/a/\u00e9"]) keys.add(key);
    const expected = [
      "/a/b",
      "/a/c",
      "/a/\u{10000}",
      "/a/\ue000",
      "/a/\uffff",
      "/a/\u{10ffff}",
      "/a/a",
      "/a/\u00e9",
    ].sort(byBytes);
    assert.deepEqual(keys.keys(), expected);
    assert.equal(keys.lowerBound("/a/\u{10000}"), expected.indexOf("/a/\u{10000}"));
    assert.equal(keys.lowerBound("/a/\uffffz"), expected.indexOf("/a/\u{10000}"));
    keys.add("/a/\uffff\u{10000}");
    keys.remove("/a/\ue000");
    const after = [...expected.filter((k) => k !== "/a/\ue000"), "/a/\uffff\u{10000}"].sort(byBytes);
    assert.deepEqual(keys.keys(), after);
  });

  it("lowerBound finds the first index not below the value", () => {
    const a = ["a", "c", "e"];
    assert.deepEqual(
      ["", "a", "b", "c", "d", "e", "f"].map((x) => lowerBound(a, x)),
      [0, 0, 1, 1, 2, 2, 3],
    );
  });
});
