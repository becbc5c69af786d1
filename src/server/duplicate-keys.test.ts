import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { findDuplicateJsonKeys } from "./duplicate-keys.js";

/** Both ways: from the text alone, and with what JSON.parse made of it (the key-count shortcut). */
const both = (text: string) => {
  const alone = findDuplicateJsonKeys(text);
  assert.deepEqual(findDuplicateJsonKeys(text, JSON.parse(text)), alone);
  return alone;
};

describe("findDuplicateJsonKeys", () => {
  it("finds a key given twice, at any depth and inside lists", () => {
    assert.deepEqual(both('{"metadata":{"name":"a","name":"b"}}'), ["metadata.name"]);
    assert.deepEqual(both('{"a":1,"a":2}'), ["a"]);
    assert.deepEqual(both('{"spec":{"items":[{"x":1},{"y":1,"y":2}]}}'), ["spec.items[1].y"]);
  });

  it("reads keys with escapes and spaces before the colon", () => {
    assert.deepEqual(both('{"a\\"b" : 1, "a\\"b"\n:2}'), ['a"b']);
    assert.deepEqual(both('{"k": "v:", "l": ["x", "y"], "m": {"k": 1}}'), []);
  });

  it("does not count a value equal to a key, nor the same key in sibling objects", () => {
    assert.deepEqual(both('{"name":"name","o":{"name":1},"p":{"name":2}}'), []);
    assert.deepEqual(both('{"__proto__":1,"x":{"__proto__":2,"__proto__":3}}'), ["x.__proto__"]);
  });
});
