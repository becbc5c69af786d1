import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { insideRoleErrors } from "./instance-access.js";

describe("an instance access rule's clusterRole", () => {
  it("a ClusterRole name, or none, is accepted", () => {
    assert.deepEqual(insideRoleErrors([{}, { clusterRole: "view" }, { clusterRole: "system:aggregate-to-edit" }]), []);
  });

  it("what cannot name a ClusterRole is refused, field by field", () => {
    const errs = insideRoleErrors([
      { clusterRole: "" },
      { clusterRole: "view" },
      { clusterRole: "../admin" },
      { clusterRole: ".." },
    ]);
    assert.deepEqual(
      errs.map((e) => e.field),
      ["spec.access[0].clusterRole", "spec.access[2].clusterRole", "spec.access[3].clusterRole"],
    );
  });
});
