import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ApiError, isApiError } from "./errors.js";
import { applyJsonPatch, applyMergePatch, MAX_JSON_PATCH_OPERATIONS, refuseOversizedResult } from "./patch.js";

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(isApiError(err), `expected an ApiError, got ${err}`);
    return err;
  }
  assert.fail("no error thrown");
}

const doc = () => ({
  metadata: { name: "alice", labels: { app: "web" } },
  spec: { roles: ["a", "b"], quota: 3 },
});

describe("applyJsonPatch", () => {
  it("applies add, remove, replace, move, copy and test", () => {
    const input = doc();
    const out = applyJsonPatch(input, [
      { op: "test", path: "/metadata/name", value: "alice" },
      { op: "add", path: "/metadata/labels/tier", value: "front" },
      { op: "remove", path: "/metadata/labels/app" },
      { op: "replace", path: "/spec/quota", value: 5 },
      { op: "add", path: "/spec/roles/-", value: "c" },
      { op: "copy", from: "/spec/quota", path: "/spec/limit" },
      { op: "move", from: "/spec/roles/0", path: "/spec/first" },
    ]);
    assert.deepEqual(out, {
      metadata: { name: "alice", labels: { tier: "front" } },
      spec: { roles: ["b", "c"], quota: 5, limit: 5, first: "a" },
    });
    assert.deepEqual(input, doc(), "the input is untouched");
  });

  it("does not share values with the operations", () => {
    const value = { nested: ["x"] };
    const out = applyJsonPatch({}, [{ op: "add", path: "/v", value }]) as { v: { nested: string[] } };
    out.v.nested.push("y");
    assert.deepEqual(value, { nested: ["x"] });
  });

  it("answers a failed test with 422 Invalid, as kube-apiserver does", () => {
    const input = doc();
    const err = refusal(() =>
      applyJsonPatch(input, [
        { op: "replace", path: "/spec/quota", value: 9 },
        { op: "test", path: "/metadata/name", value: "bob" },
      ]),
    );
    assert.equal(err.code, 422);
    assert.equal(err.reason, "Invalid");
    assert.equal(err.message, "the server rejected our request due to an error in our request");
    assert.match(
      err.status.details!.causes![0]!.message!,
      /^operation 1 \(test "\/metadata\/name"\): Test operation failed/,
    );
    assertOnThePatch(err);
    assert.deepEqual(input, doc(), "no partial application leaks into the input");
  });

  it("answers paths that do not resolve and unknown ops with 422", () => {
    for (const ops of [
      [{ op: "replace", path: "/spec/roles/2", value: "c" }],
      [{ op: "replace", path: "/spec/limits/cpu", value: 1 }],
      [{ op: "replace", path: "/spec/quota/x", value: 1 }],
      [{ op: "replace", path: "/__proto__/polluted", value: 1 }],
      [{ op: "remove", path: "/metadata/labels/none" }],
      [{ op: "add", path: "/nope/deeper", value: 1 }],
      [{ op: "add", path: "/spec/roles/7", value: "x" }],
      [{ op: "frobnicate", path: "/spec" }],
      [{ op: "add", path: "spec", value: 1 }],
      [{ op: "add", path: "/spec/x" }],
      [{ op: "add", path: "/__proto__/polluted", value: 1 }],
    ]) {
      const err = refusal(() => applyJsonPatch(doc(), ops));
      assert.equal(err.code, 422, JSON.stringify(ops));
      assertOnThePatch(err);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  // kube-apiserver's JSON patch library adds a key a `replace` names on an object that lacks it;
  // the RFC (and fast-json-patch alone) refuse it. What else is missing is refused by both.
  it("adds a key that a replace names on an object lacking it, as kube-apiserver does", () => {
    const input = doc();
    const out = applyJsonPatch(input, [
      { op: "replace", path: "/spec/description", value: "new" },
      { op: "replace", path: "/metadata/annotations", value: { "a~b/c": "1" } },
      { op: "replace", path: "/metadata/annotations/a~0b~1d", value: "2" },
      { op: "replace", path: "/top", value: true },
    ]);
    assert.deepEqual(out, {
      metadata: { name: "alice", labels: { app: "web" }, annotations: { "a~b/c": "1", "a~b/d": "2" } },
      spec: { roles: ["a", "b"], quota: 3, description: "new" },
      top: true,
    });
    assert.deepEqual(input, doc(), "the input is untouched");
  });

  it("refuses a body that is not an array of objects with 400", () => {
    assert.equal(refusal(() => applyJsonPatch(doc(), { op: "add" })).code, 400);
    assert.equal(refusal(() => applyJsonPatch(doc(), ["add"])).code, 400);
    assert.equal(refusal(() => applyJsonPatch(doc(), null)).code, 400);
  });

  it("accepts 10,000 operations and refuses more with 413", () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS }, () => ({
      op: "test",
      path: "/spec/quota",
      value: 3,
    }));
    assert.deepEqual(applyJsonPatch(doc(), ops), doc());
    const err = refusal(() => applyJsonPatch(doc(), [...ops, ops[0]]));
    assert.equal(err.code, 413);
    assert.equal(err.reason, "RequestEntityTooLarge");
    assert.equal(
      err.message,
      "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
    );
  });

  it("treats an empty patch as no change", () => {
    assert.deepEqual(applyJsonPatch(doc(), []), doc());
  });
});

describe("applyMergePatch", () => {
  it("merges objects and deletes keys set to null", () => {
    const input = doc();
    const out = applyMergePatch(input, { metadata: { labels: { app: null, tier: "db" } }, spec: { quota: null } });
    assert.deepEqual(out, { metadata: { name: "alice", labels: { tier: "db" } }, spec: { roles: ["a", "b"] } });
    assert.deepEqual(input, doc(), "the input is untouched");
  });

  it("replaces arrays and scalars wholesale", () => {
    assert.deepEqual(applyMergePatch(doc(), { spec: { roles: ["z"] } }), {
      metadata: { name: "alice", labels: { app: "web" } },
      spec: { roles: ["z"], quota: 3 },
    });
    assert.deepEqual(applyMergePatch({ a: [{ b: 1 }] }, { a: [{ c: 2 }] }), { a: [{ c: 2 }] });
  });

  it("follows the RFC 7396 examples", () => {
    assert.deepEqual(applyMergePatch({ a: "b" }, { a: "c" }), { a: "c" });
    assert.deepEqual(applyMergePatch({ a: "b" }, { b: "c" }), { a: "b", b: "c" });
    assert.deepEqual(applyMergePatch({ a: "b" }, { a: null }), {});
    assert.deepEqual(applyMergePatch({ a: "b", b: "c" }, { a: null }), { b: "c" });
    assert.deepEqual(applyMergePatch({ a: ["b"] }, { a: "c" }), { a: "c" });
    assert.deepEqual(applyMergePatch({ a: "c" }, { a: ["b"] }), { a: ["b"] });
    assert.deepEqual(applyMergePatch({ a: { b: "c" } }, { a: { b: "d", c: null } }), { a: { b: "d" } });
    assert.deepEqual(applyMergePatch({ a: [{ b: "c" }] }, { a: [1] }), { a: [1] });
    assert.deepEqual(applyMergePatch(["a", "b"], ["c", "d"]), ["c", "d"]);
    assert.deepEqual(applyMergePatch({ a: "b" }, ["c"]), ["c"]);
    assert.deepEqual(applyMergePatch({ a: "foo" }, null), null);
    assert.deepEqual(applyMergePatch({ a: "foo" }, "bar"), "bar");
    assert.deepEqual(applyMergePatch({ e: null }, { a: 1 }), { e: null, a: 1 });
    assert.deepEqual(applyMergePatch([1, 2], { a: "b", c: null }), { a: "b" });
    assert.deepEqual(applyMergePatch({}, { a: { bb: { ccc: null } } }), { a: { bb: {} } });
  });

  it("shares nothing with the patch and keeps __proto__ as plain data", () => {
    const patch = JSON.parse('{"spec":{"list":[1]},"__proto__":{"polluted":true}}');
    const out = applyMergePatch({}, patch) as Record<string, unknown> & { spec: { list: number[] } };
    out.spec.list.push(2);
    assert.deepEqual(patch.spec.list, [1]);
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.ok(Object.hasOwn(out, "__proto__"));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe("patches that grow an object", () => {
  /** `n` copies of /metadata/annotations into itself: each doubles what the next one copies. */
  const doubling = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      op: "copy",
      from: "/metadata/annotations",
      path: `/metadata/annotations/a${i}`,
    }));
  const annotated = () => ({ metadata: { name: "x", annotations: { seed: "v".repeat(1024) } } });

  it("refuses copies that would add more than the request body limit, with 422 naming the operation", () => {
    // 1 KiB doubled a dozen times is 4 MiB: past the 3 MiB limit at the twelfth copy.
    const err = refusal(() => applyJsonPatch(annotated(), doubling(12)));
    assert.equal(err.status.code, 422);
    assert.match(
      err.status.details?.causes?.[0]?.message ?? "",
      /^operation 11 \(copy "\/metadata\/annotations\/a11"\): the copies of this patch would add more than 3145728 bytes/,
    );
    assertOnThePatch(err);
  });

  it("applies copies that stay within the limit", () => {
    const out = applyJsonPatch(annotated(), doubling(10)) as ReturnType<typeof annotated>;
    assert.ok(JSON.stringify(out).length > 1024 * 1024);
    assert.equal(Object.keys(out.metadata.annotations).length, 11);
  });

  it("still refuses a copy or move from a path that does not exist", () => {
    for (const op of ["copy", "move"]) {
      const err = refusal(() => applyJsonPatch(doc(), [{ op, from: "/spec/nope", path: "/spec/x" }]));
      assert.equal(err.status.code, 422);
      assert.match(err.status.details?.causes?.[0]?.message ?? "", /from a path that does not exist/);
      assertOnThePatch(err);
    }
  });

  it("refuses a patched object larger than a request body with 413", () => {
    assert.doesNotThrow(() => refuseOversizedResult({ big: "x".repeat(1024 * 1024) }));
    const err = refusal(() => refuseOversizedResult({ big: "x".repeat(3 * 1024 * 1024) }));
    assert.equal(err.status.code, 413);
    assert.match(err.status.message ?? "", /^Request entity too large: the patched object is \d+ bytes of JSON/);
  });
});

/** A 422 of a patch that does not apply: one cause, a FieldValueInvalid on the field `patch`, as every 422 cause names a field. */
function assertOnThePatch(err: ApiError): void {
  const causes = err.status.details?.causes ?? [];
  assert.equal(causes.length, 1, JSON.stringify(causes));
  assert.equal(causes[0]?.field, "patch");
  assert.equal(causes[0]?.reason, "FieldValueInvalid");
}
