import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { allResourceTypes } from "../kinds/index.js";
import { consoleKinds } from "./console-kinds.js";

function servedKinds() {
  return allResourceTypes({
    cipher: { encrypt: (v) => v, decrypt: (v) => v },
    secretDataReaders: { mayReadData: () => true },
    tokenIssuer: { issue: async () => "", maxTtlSeconds: 60 },
  });
}

/** The schema at a dotted path (`spec.config.secretName`), or undefined when the schema has no such field. */
function schemaAt(schema: unknown, path: string): unknown {
  let cur = schema as { properties?: Record<string, unknown> } | undefined;
  for (const part of path.split(".")) cur = cur?.properties?.[part] as typeof cur;
  return cur;
}

describe("the console's kinds, as the kinds declare them", () => {
  const served = servedKinds();
  const kinds = consoleKinds(served);

  it("are the registered kinds with a console presentation, in registration order", () => {
    assert.deepEqual(
      kinds.map((k) => k.plural),
      served.filter((rt) => rt.console).map((rt) => rt.plural),
    );
    assert.ok(kinds.some((k) => k.plural === "sharedsecrets"));
    assert.ok(!kinds.some((k) => k.plural === "selves"), "a kind without a presentation is not listed");
  });

  it("edit only fields the schema has", () => {
    for (const k of kinds) {
      const rt = served.find((r) => r.plural === k.plural)!;
      for (const f of k.fields) {
        assert.ok(schemaAt(rt.schema, f.path) !== undefined, `${k.plural}: ${f.path} is in the schema`);
      }
    }
  });

  it("mask secret fields the schema has, and the shared secrets' data", () => {
    for (const rt of served) {
      for (const path of rt.secretFields ?? []) {
        assert.ok(schemaAt(rt.schema, path) !== undefined, `${rt.plural}: ${path} is in the schema`);
      }
    }
    assert.deepEqual(kinds.find((k) => k.plural === "sharedsecrets")?.secretFields, ["spec.data"]);
  });
});
