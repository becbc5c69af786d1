import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { responseEnd } from "./http-response-end.js";

const chunked = (body: string) =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;

describe("responseEnd (the paced GET client's framing)", () => {
  it("a Content-Length body ends after its length, and not before it is all there", () => {
    const r = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
    assert.equal(responseEnd(Buffer.from(r)), r.length);
    assert.equal(responseEnd(Buffer.from(r.slice(0, -1))), -1);
    assert.equal(responseEnd(Buffer.from("HTTP/1.1 200 OK\r\nContent-Len")), -1);
  });

  it("a chunked body ends after its last chunk, not at its headers", () => {
    const r = chunked('{"kind":"Pod"}');
    assert.equal(responseEnd(Buffer.from(r)), r.length);
    const headers = r.slice(0, r.indexOf("\r\n\r\n") + 4);
    assert.equal(responseEnd(Buffer.from(headers)), -1);
    assert.equal(responseEnd(Buffer.from(r.slice(0, -2))), -1);
  });

  it("two answers in one read: the first ends where the second begins", () => {
    const first = chunked("a\r\n\r\nb");
    const both = Buffer.from(first + chunked("second"));
    assert.equal(responseEnd(both), first.length);
    assert.equal(responseEnd(both.subarray(first.length)), both.length - first.length);
  });

  it("several chunks", () => {
    const r = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
    assert.equal(responseEnd(Buffer.from(r)), r.length);
  });
});
