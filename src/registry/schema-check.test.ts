import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "@sinclair/typebox";
import { Ajv } from "ajv";
import type { Authorizer } from "../authz/contract.js";
import { reviewKinds } from "../authz/reviews/index.js";
import { eventResource } from "../events/event-type.js";
import { allResourceTypes } from "../kinds/index.js";
import type { Registry } from "./registry.js";
import { AJV_OPTIONS, SchemaChecker } from "./schema-check.js";

// The checkers compile without checking the schemas against the JSON Schema meta-schema
// (schema-check.ts): every schema the server serves is checked against it here instead.
function servedKinds() {
  const kinds = allResourceTypes({
    cipher: { encrypt: (v) => v, decrypt: (v) => v },
    secretDataReaders: { mayReadData: () => true },
    tokenIssuer: { issue: async () => "", maxTtlSeconds: 60 },
  });
  const reviews = reviewKinds({ authorizer: {} as Authorizer, registry: {} as Registry });
  return [...kinds, ...reviews, eventResource];
}

describe("SchemaChecker", () => {
  it("every served kind's schema is a valid JSON Schema (meta-schema check)", () => {
    const ajv = new Ajv(AJV_OPTIONS);
    const kinds = servedKinds();
    assert.ok(kinds.length >= 10, `expected every kind, got ${kinds.length}`);
    for (const rt of kinds) {
      assert.equal(ajv.validateSchema(rt.schema), true, `${rt.kind}: ${ajv.errorsText(ajv.errors)}`);
    }
  });

  it("the meta-schema check refuses a broken schema (so the test above can fail)", () => {
    const ajv = new Ajv(AJV_OPTIONS);
    assert.equal(ajv.validateSchema({ type: "object", properties: { a: { type: "no-such-type" } } }), false);
  });

  it("checkers of equal schemas, and of different ones, each check against their own schema", () => {
    const a1 = new SchemaChecker(Type.Object({ n: Type.Integer() }));
    const a2 = new SchemaChecker(Type.Object({ n: Type.Integer() }));
    const b = new SchemaChecker(Type.Object({ n: Type.String() }));
    assert.deepEqual(a1.check({ n: 1 }), []);
    assert.deepEqual(a2.check({ n: 1 }), []);
    assert.equal(b.check({ n: 1 }).length, 1);
    assert.deepEqual(b.check({ n: "x" }), []);
    const [err] = a2.check({ n: "x" });
    assert.equal(err?.type, "FieldValueTypeInvalid");
    assert.equal(err?.field, "n");
  });

  it("errors of one check do not leak into the next (shared validators)", () => {
    const checker = new SchemaChecker(Type.Object({ n: Type.Integer(), s: Type.String() }));
    const other = new SchemaChecker(Type.Object({ n: Type.Integer(), s: Type.String() }));
    assert.equal(checker.check({ n: "x", s: 1 }).length, 2);
    assert.deepEqual(other.check({ n: 2, s: "y" }), []);
    const missing = checker.check({ s: "y" });
    assert.deepEqual(
      missing.map((e) => [e.type, e.field]),
      [["FieldValueRequired", "n"]],
    );
  });
});
