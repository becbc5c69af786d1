import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { quotesAnyValue } from "./quoted-values.js";

const bytes = (s: string) => Buffer.from(s, "utf8");
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

describe("quotesAnyValue", () => {
  const long = "correct horse battery staple, then some more words of the password";

  it("finds a value quoted as text, as base64 and JSON-escaped, short or long", () => {
    assert.ok(quotesAnyValue('data.pin: Invalid value: "4711"', [bytes("4711")]));
    assert.ok(quotesAnyValue(`denied: token is ${b64("s3cret")}`, [bytes("s3cret")]));
    assert.ok(quotesAnyValue(`refused ${long}`, [bytes(long)]));
    assert.ok(quotesAnyValue(`refused ${b64(long)}`, [bytes(long)]));
    const multiline = 'line one "quoted"\nline two of the value';
    assert.ok(quotesAnyValue(`refused: ${JSON.stringify({ v: multiline })}`, [bytes(multiline)]));
  });

  it("finds a long value's quote cut short or starting inside it", () => {
    const encoded = b64(long);
    assert.ok(quotesAnyValue(`value: "${encoded.slice(0, 31)}..."`, [bytes(long)]));
    assert.ok(quotesAnyValue(`value: "...${long.slice(17, 48)}"`, [bytes(long)]));
  });

  it("finds binary values by their base64", () => {
    const binary = Uint8Array.from([0xff, 0xfe, 0x00, 0x80, 0x7f, 0x10, 0x20, 0x30]);
    assert.ok(quotesAnyValue(`data.key: ${Buffer.from(binary).toString("base64")}`, [binary]));
  });

  it("does not find what is not there: other words, an empty value, no values", () => {
    const message = 'Secret app-db: the cluster at "prod" answered 422: admission webhook "policy" denied the request';
    assert.equal(quotesAnyValue(message, [bytes("s3cret"), bytes(long)]), false);
    assert.equal(quotesAnyValue(message, [new Uint8Array()]), false);
    assert.equal(quotesAnyValue(message, []), false);
  });
});
