import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fieldErrorMessage } from "../errors.js";
import {
  annotationsSize,
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
  validateAnnotations,
  validateFinalizerName,
  validateFinalizers,
  validateLabels,
  validateOwnerReferences,
} from "./metadata.js";

describe("validateLabels", () => {
  it("accepts valid labels and absent maps", () => {
    assert.deepEqual(validateLabels({ app: "web", "example.com/tier": "", "a.b_c": "x-y.z" }), []);
    assert.deepEqual(validateLabels(undefined), []);
  });
  it("reports bad keys and values under metadata.labels", () => {
    const errs = validateLabels({ "-bad": "ok", good: "-bad", long: "v".repeat(64) });
    assert.equal(errs.length, 3);
    assert.ok(errs.every((e) => e.field === "metadata.labels" && e.type === "FieldValueInvalid"));
    assert.equal(errs[0]!.value, "-bad");
    assert.match(
      fieldErrorMessage(errs[2]!),
      /^metadata\.labels: Invalid value: "v+": must be no more than 63 characters$/,
    );
  });
  it("uses the given path", () => {
    assert.equal(validateLabels({ "a/b/c": "x" }, "spec.selector")[0]!.field, "spec.selector");
  });
});

describe("validateAnnotations", () => {
  it("accepts any value and upper-case keys", () => {
    assert.deepEqual(validateAnnotations({ "Example.com/Note": "free text: ✓ / anything" }), []);
  });
  it("refuses bad keys", () => {
    const errs = validateAnnotations({ "a b": "x" });
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, "metadata.annotations");
  });
  it("limits the total size to 256 KiB, counting bytes", () => {
    const key = "k";
    const fits = { [key]: "v".repeat(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES - 1) };
    assert.equal(annotationsSize(fits), TOTAL_ANNOTATION_SIZE_LIMIT_BYTES);
    assert.deepEqual(validateAnnotations(fits), []);
    const over = { [key]: "v".repeat(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) };
    const errs = validateAnnotations(over);
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.type, "FieldValueTooLong");
    assert.equal(fieldErrorMessage(errs[0]!), "metadata.annotations: Too long: may not be more than 262144 bytes");
    // multi-byte characters count as their UTF-8 length
    assert.equal(validateAnnotations({ k: "é".repeat(TOTAL_ANNOTATION_SIZE_LIMIT_BYTES / 2) }).length, 1);
  });
});

describe("validateFinalizerName", () => {
  it("accepts qualified and standard finalizers", () => {
    assert.deepEqual(validateFinalizerName("management.platform/cleanup"), []);
    assert.deepEqual(validateFinalizerName("orphan"), []);
    assert.deepEqual(validateFinalizerName("foregroundDeletion"), []);
  });
  it("refuses unqualified and malformed names", () => {
    const [e] = validateFinalizerName("cleanup");
    assert.equal(e!.detail, "name is neither a standard finalizer name nor is it fully qualified");
    assert.equal(validateFinalizerName("a/b/c").length, 1);
    assert.equal(validateFinalizers(["x/ok", "bad name/x"]).length, 1);
  });
});

describe("validateOwnerReferences", () => {
  const ref = { apiVersion: "management.platform/v1", kind: "Team", name: "a", uid: "u1" };
  it("accepts complete references", () => {
    assert.deepEqual(validateOwnerReferences([ref, { ...ref, name: "b", uid: "u2", controller: true }]), []);
  });
  it("requires apiVersion with a version, kind, name and uid", () => {
    const errs = validateOwnerReferences([{ apiVersion: "management.platform/", kind: "", name: "" }]);
    assert.deepEqual(
      errs.map((e) => [e.field, e.detail]),
      [
        ["metadata.ownerReferences.apiVersion", "version must not be empty"],
        ["metadata.ownerReferences.kind", "kind must not be empty"],
        ["metadata.ownerReferences.name", "name must not be empty"],
        ["metadata.ownerReferences.uid", "uid must not be empty"],
      ],
    );
  });
  it("allows at most one controller", () => {
    const errs = validateOwnerReferences([
      { ...ref, controller: true },
      { ...ref, name: "b", controller: true },
    ]);
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, "metadata.ownerReferences");
    assert.equal(
      errs[0]!.detail,
      'Only one reference can have Controller set to true. Found "true" in references for Team/a and Team/b',
    );
  });
});
