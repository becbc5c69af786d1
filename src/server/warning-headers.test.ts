import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  MAX_WARNING_HEADER_BYTES,
  MAX_WARNING_HEADERS,
  WARNING_ITEM_CHARACTERS,
  warningHeaders,
} from "./warning-headers.js";

const utf8 = (header: string) => Buffer.from(header, "latin1").toString("utf8");

describe("warningHeaders", () => {
  it('quotes, escapes " and \\, sends UTF-8 bytes, turns controls into spaces, dedupes', () => {
    const headers = warningHeaders(['a "b" \\c', "日本", "x\r\ny\u0000z", "日本", ""]);
    assert.deepEqual(headers.map(utf8), ['299 - "a \\"b\\" \\\\c"', '299 - "日本"', '299 - "x y z"']);
    // Every header value is a valid Node header value (Latin-1 characters only).
    for (const h of headers) assert.match(h, /^[\t\x20-\x7e\x80-\xff]*$/);
  });

  it("under 4096 characters in total, keeps every warning whole", () => {
    const long = "w".repeat(1000);
    assert.deepEqual(warningHeaders([long, `${long}2`]).map(utf8), [`299 - "${long}"`, `299 - "${long}2"`]);
  });

  it("over 4096 characters, cuts each to 256 and leaves out what is past the total, saying so", () => {
    const texts = Array.from({ length: 30 }, (_, i) => `${i}:${"v".repeat(500)}`);
    const headers = warningHeaders(texts).map(utf8);
    assert.equal(headers[0], `299 - "${texts[0]?.slice(0, WARNING_ITEM_CHARACTERS)}"`);
    assert.equal(headers.length, 16 + 1);
    assert.equal(headers.at(-1), '299 - "14 more warnings were left out"');
  });

  it("caps the count and the bytes of the headers", () => {
    const many = warningHeaders(Array.from({ length: 500 }, (_, i) => `w${i}`));
    assert.equal(many.length, MAX_WARNING_HEADERS);
    assert.equal(utf8(many.at(-1) ?? ""), '299 - "451 more warnings were left out"');
    const wide = warningHeaders(Array.from({ length: 40 }, (_, i) => `${i}${"日".repeat(100)}`));
    assert.ok(wide.reduce((n, h) => n + h.length, 0) <= MAX_WARNING_HEADER_BYTES);
    assert.match(utf8(wide.at(-1) ?? ""), /more warnings were left out/);
  });
});
