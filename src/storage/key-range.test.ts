import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compareKeys, hasPrefix, keyBefore, ordersNatively, prefixEnd } from "./key-range.js";

/** Key order as the backends have it: the UTF-8 bytes. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Keys around every edge: ASCII, two- and three-byte UTF-8, U+D7FF/U+E000/U+FFFF, supplementary, U+10FFFF. */
const EDGE_KEYS = [
  "",
  "/",
  "/a/",
  "/a/b",
  "/a/b0",
  "/a/\u007f",
  "/a/\u00e9",
  "/a/\u00e9x",
  "/a/\u00ea",
  "/a/\u07ff",
  "/a/\u0800",
  "/a/\ud7ff",
  "/a/\ud7ffz",
  "/a/\ue000",
  "/a/\uffff",
  "/a/\uffffz",
  "/a/\u{10000}",
  "/a/\u{10000}z",
  "/a/\u{10001}",
  "/a/\u{1f600}",
  "/a/\u{10ffff}",
  "/a/\u{10ffff}z",
  "/a/\u{10ffff}\u{10ffff}",
  "/a0",
  "/b",
  "\u{10ffff}",
  "\u{10ffff}\u{10ffff}",
];

describe("prefixEnd", () => {
  it("ends the range of a prefix at the next code point, carrying over U+10FFFF", () => {
    assert.equal(prefixEnd(""), undefined);
    assert.equal(prefixEnd("/a/b/"), "/a/b0");
    assert.equal(prefixEnd("\u00e9"), "\u00ea");
    assert.equal(prefixEnd("a\ud7ff"), "a\ue000");
    assert.equal(prefixEnd("a\uffff"), "a\u{10000}");
    assert.equal(prefixEnd("a\u{10000}"), "a\u{10001}");
    assert.equal(prefixEnd("a\u{10ffff}"), "b");
    assert.equal(prefixEnd("a\u{10ffff}\u{10ffff}"), "b");
    assert.equal(prefixEnd("\u{10ffff}"), undefined);
    assert.equal(prefixEnd("\u{10ffff}\u{10ffff}"), undefined);
  });

  it("bounds, as bytes, exactly the keys that start with the prefix", () => {
    // Every key with the prefix is in [prefix, end), and every key in it has the prefix: what
    // SQLite's BETWEEN-like range, etcd's range_end and the watch cache's binary search rely on.
    for (const prefix of EDGE_KEYS) {
      const end = prefixEnd(prefix);
      for (const key of EDGE_KEYS) {
        const inRange = byBytes(key, prefix) >= 0 && (end === undefined || byBytes(key, end) < 0);
        assert.equal(inRange, key.startsWith(prefix), `prefix ${JSON.stringify(prefix)}, key ${JSON.stringify(key)}`);
      }
    }
  });
});

describe("key order", () => {
  it("keyBefore and compareKeys agree with the UTF-8 bytes", () => {
    for (const a of EDGE_KEYS) {
      for (const b of EDGE_KEYS) {
        const bytes = Math.sign(byBytes(a, b));
        assert.equal(compareKeys(a, b), bytes, `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
        assert.equal(keyBefore(a, b), bytes < 0);
      }
    }
    assert.deepEqual([...EDGE_KEYS].reverse().sort(compareKeys), [...EDGE_KEYS].sort(byBytes));
  });

  it("`<` is key order whenever one side orders natively", () => {
    assert.equal("\ue000" < "\u{10000}", false, "UTF-16 order differs here");
    assert.equal(keyBefore("\ue000", "\u{10000}"), true);
    for (const a of EDGE_KEYS.filter(ordersNatively)) {
      for (const b of EDGE_KEYS) assert.equal(a < b, keyBefore(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
    }
    assert.equal(ordersNatively("/registry/g/things/a-b.c"), true);
    assert.equal(ordersNatively("/a/\ue000"), false);
  });
});

describe("hasPrefix", () => {
  it("answers as startsWith does", () => {
    const strings = ["", "/", "/a", "/a/", "/a/b", "/b/", "/ab", "é", "/é/x", "/\u{1F600}/", "/\u{1F600}/k"];
    for (const key of strings) {
      for (const prefix of strings) assert.equal(hasPrefix(key, prefix), key.startsWith(prefix), `${key} ${prefix}`);
    }
  });
});
