import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { textNestingExceeds, valueNestingExceeds } from "./nesting-depth.js";

describe("nesting depth", () => {
  it("counts brackets of the text, not those inside strings", () => {
    assert.equal(textNestingExceeds("[[[]]]", 3), false);
    assert.equal(textNestingExceeds("[[[[]]]]", 3), true);
    assert.equal(textNestingExceeds('{"a":"[[[[[\\"[[["}', 2), false);
    assert.equal(textNestingExceeds(`${"[".repeat(1_000_000)}`), true);
  });

  it("measures values without recursion", () => {
    assert.equal(valueNestingExceeds({ a: [{ b: 1 }] }, 3), false);
    assert.equal(valueNestingExceeds({ a: [{ b: {} }] }, 3), true);
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    assert.equal(valueNestingExceeds(deep), true);
    assert.equal(valueNestingExceeds("text"), false);
  });
});
