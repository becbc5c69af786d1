import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { listOptions } from "./query.js";

describe("the limit of a list", () => {
  it("lists everything for a limit of zero or less, as kube-apiserver does", () => {
    for (const v of ["0", "-1", "-500"]) assert.equal(listOptions({ limit: v }).limit, undefined, v);
    assert.equal(listOptions({ limit: "5" }).limit, 5);
  });
  it("still refuses a limit that is no integer", () => {
    assert.throws(() => listOptions({ limit: "1.5" }), /invalid value for limit/);
  });
});
