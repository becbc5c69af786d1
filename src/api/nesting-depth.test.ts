import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { closingQuote, textNestingExceeds, valueNestingExceeds } from "./nesting-depth.js";

describe("nesting depth", () => {
  it("counts brackets of the text, not those inside strings", () => {
    assert.equal(textNestingExceeds("[[[]]]", 3), false);
    assert.equal(textNestingExceeds("[[[[]]]]", 3), true);
    assert.equal(textNestingExceeds('{"a":"[[[[[\\"[[["}', 2), false);
    assert.equal(textNestingExceeds(`${"[".repeat(1_000_000)}`), true);
  });

  it("finds where a string ends as reading it a character at a time does (escapes, runs of backslashes, no end)", () => {
    // The reading it replaces: a backslash skips the next character, the first other quote ends the string.
    const oneByOne = (text: string, open: number) => {
      let i = open + 1;
      for (; i < text.length; i++) {
        if (text[i] === "\\") i++;
        else if (text[i] === '"') return i;
      }
      return text.length;
    };
    const cases = ['"abc"', '"a\\"b"', '"a\\\\"b"', '"a\\\\\\"b"c"', '"\\"', '"unterminated', '"ends in \\', 'x"y"z'];
    // And every string of up to 7 characters from quote, backslash and x, opened at its first quote.
    const alphabet = ['"', "\\", "x"];
    for (let len = 1; len <= 7; len++) {
      for (let code = 0; code < 3 ** len; code++) {
        let t = "";
        for (let c = code, k = 0; k < len; k++, c = Math.floor(c / 3)) t += alphabet[c % 3];
        cases.push(t);
      }
    }
    let checked = 0;
    for (const text of cases) {
      const open = text.indexOf('"');
      if (open < 0) continue;
      assert.equal(closingQuote(text, open), oneByOne(text, open), JSON.stringify(text));
      checked++;
    }
    assert.ok(checked > 2000);
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
