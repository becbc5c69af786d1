import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "@sinclair/typebox";
import { Ajv } from "ajv";
import { fieldErrorBody } from "../api/errors.js";
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

  // kube-apiserver's words for the same rules on a custom resource (kube-oracle.test.ts compares them).
  it("words a wrong type as kube-apiserver does: the type sent as the value, the field in the detail", () => {
    const checker = new SchemaChecker(
      Type.Object({ spec: Type.Object({ name: Type.String(), users: Type.Array(Type.String()) }) }),
    );
    const errs = checker.check({ spec: { name: 5, users: [1.5, true, {}, []] } });
    assert.deepEqual(
      errs.map((e) => [e.field, fieldErrorBody(e)]),
      [
        ["spec.name", 'Invalid value: "integer": spec.name in body must be of type string: "integer"'],
        ["spec.users[0]", 'Invalid value: "number": spec.users[0] in body must be of type string: "number"'],
        ["spec.users[1]", 'Invalid value: "boolean": spec.users[1] in body must be of type string: "boolean"'],
        ["spec.users[2]", 'Invalid value: "object": spec.users[2] in body must be of type string: "object"'],
        ["spec.users[3]", 'Invalid value: "array": spec.users[3] in body must be of type string: "array"'],
      ],
    );
  });

  it("gives a copy without the values it refuses, list items leaving holes, for code to read", () => {
    const checker = new SchemaChecker(
      Type.Object({
        spec: Type.Object({
          name: Type.String(),
          size: Type.Optional(Type.Integer({ minimum: 0 })),
          users: Type.Array(Type.String()),
          owner: Type.Optional(Type.Object({ user: Type.String() })),
        }),
      }),
    );
    const body = { spec: { name: 5, size: -1, users: ["a", 1, "c"], owner: {} } };
    const readable = checker.withoutRefusedValues(body);
    // The missing owner.user stays missing; its object stays.
    const { users, ...rest } = readable.spec;
    assert.deepEqual(rest, { owner: {} });
    assert.deepEqual(Object.entries(users), [
      ["0", "a"],
      ["2", "c"],
    ]);
    assert.equal(users.length, 3);
    assert.deepEqual(body, { spec: { name: 5, size: -1, users: ["a", 1, "c"], owner: {} } }, "the body is kept");
    assert.deepEqual(checker.withoutRefusedValues({ spec: { name: "n", users: [] } }), {
      spec: { name: "n", users: [] },
    });
  });

  it("words a value under its minimum as kube-apiserver does, with the value", () => {
    const [err] = new SchemaChecker(Type.Object({ count: Type.Integer({ minimum: 0 }) })).check({ count: -2 });
    assert.equal(err?.field, "count");
    assert.equal(err && fieldErrorBody(err), "Invalid value: -2: count in body should be greater than or equal to 0");
  });

  it("words a list past its maxItems as kube-apiserver does: FieldValueTooMany with the count found", () => {
    const schema = Type.Object({ spec: Type.Object({ users: Type.Array(Type.String(), { maxItems: 2 }) }) });
    const [err, ...more] = new SchemaChecker(schema).check({ spec: { users: ["a", "b", "c"] } });
    assert.deepEqual(more, []);
    assert.equal(err?.type, "FieldValueTooMany");
    assert.equal(err?.field, "spec.users");
    assert.equal(err && fieldErrorBody(err), "Too many: 3: must have at most 2 items");
  });
});
