import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bool, isWatch } from "./query.js";

describe("boolean query parameters (as kube-apiserver converts them)", () => {
  it("reads only 0 and false, in any case, as false", () => {
    for (const v of ["0", "false", "False", "FALSE", "fAlSe"]) assert.equal(bool({ force: v }, "force"), false, v);
  });
  it("reads every other value, the empty string included, as true", () => {
    for (const v of ["", "1", "true", "True", "TRUE", "yes", "anything"])
      assert.equal(bool({ force: v }, "force"), true, v);
  });
  it("leaves an absent parameter undefined and takes the first of repeated values, as kube does", () => {
    assert.equal(bool({}, "force"), undefined);
    assert.equal(bool({ force: ["true", "False"] }, "force"), true);
    assert.equal(bool({ force: ["False", "true"] }, "force"), false);
    assert.equal(isWatch({ watch: "True" }), true);
    assert.equal(isWatch({ watch: "False" }), false);
  });
});
