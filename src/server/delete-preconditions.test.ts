import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiError } from "../api/errors.js";
import { deletePreconditions } from "./delete-preconditions.js";

describe("a DELETE's preconditions, decoded as kube-apiserver decodes them", () => {
  it("keeps strings, the empty one included, and drops nulls", () => {
    assert.deepEqual(deletePreconditions({ uid: "", resourceVersion: "7" }), { uid: "", resourceVersion: "7" });
    assert.deepEqual(deletePreconditions({ uid: null }), {});
    assert.equal(deletePreconditions(null), undefined);
    assert.equal(deletePreconditions(undefined), undefined);
  });

  it("refuses other types with 400 in the Go decoder's words", () => {
    const refusal = (value: unknown) => {
      try {
        deletePreconditions(value);
      } catch (err) {
        assert.equal((err as ApiError).code, 400);
        return (err as ApiError).message;
      }
      assert.fail(`accepted ${JSON.stringify(value)}`);
    };
    assert.equal(
      refusal({ uid: 5 }),
      "json: cannot unmarshal number into Go struct field Preconditions.preconditions.uid of type types.UID",
    );
    assert.equal(
      refusal({ resourceVersion: [true] }),
      "json: cannot unmarshal array into Go struct field Preconditions.preconditions.resourceVersion of type string",
    );
    assert.equal(
      refusal({ resourceVersion: false }),
      "json: cannot unmarshal bool into Go struct field Preconditions.preconditions.resourceVersion of type string",
    );
    assert.equal(
      refusal("x"),
      "json: cannot unmarshal string into Go struct field DeleteOptions.preconditions of type v1.Preconditions",
    );
  });
});
