import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { withResourceVersion } from "./shared-codec.js";

const bytes = (s: string) => Buffer.from(s);

describe("shared codec", () => {
  test("splices the resourceVersion into the top-level metadata only", () => {
    const stored = bytes('{"spec":{"metadata":{"x":"\\"metadata\\":{"}},"metadata":{"name":"a"}}');
    const out = JSON.parse(withResourceVersion(stored, 42)!.toString());
    assert.equal(out.metadata.resourceVersion, "42");
    assert.equal(out.spec.metadata.resourceVersion, undefined);
    assert.equal(
      JSON.parse(withResourceVersion(bytes('{"metadata":{}}'), 7)!.toString()).metadata.resourceVersion,
      "7",
    );
    assert.equal(withResourceVersion(bytes('{"kind":"metadata"}'), 1), undefined);
  });

  test("bytes not framed as a JSON object are not spliced (the caller decodes, and refuses them)", () => {
    for (const corrupt of [
      '{"metadata":{"name":"a"},"spec":{"users":["x"',
      'x{"metadata":{"name":"a"}}',
      '{"metadata":{"name":"a"}}x',
      "",
      "   ",
    ]) {
      assert.equal(withResourceVersion(bytes(corrupt), 3), undefined, corrupt);
    }
    const spaced = withResourceVersion(bytes(' \n{"metadata":{"name":"a"}}\r\n\t'), 3);
    assert.equal(JSON.parse(spaced!.toString()).metadata.resourceVersion, "3", "whitespace around is fine");
  });
});
