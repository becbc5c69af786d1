import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clusterResource } from "./cluster.js";
import { type GrantEntryShape, LIST_CHECK } from "./grants-cell.js";

/** The GRANTS cell as `kubectl get clusters -o wide` shows it, through the kind's own column. */
function grantsColumn(grants: GrantEntryShape[] | undefined): unknown {
  const column = clusterResource.columns.find((c) => c.name === "Grants");
  assert.ok(column, "the Cluster kind has a Grants column");
  return column.cell({
    apiVersion: "management.platform/v1",
    kind: "Cluster",
    metadata: { name: "c" },
    status: { grants },
  });
}

const grant = (name: string, applied: boolean): GrantEntryShape => ({ name, clusterRoleTemplate: "edit", applied });
const failedList = (kind: string): GrantEntryShape => ({
  name: `(list of ${kind}s)`,
  clusterRoleTemplate: "",
  applied: false,
  check: LIST_CHECK,
});

describe("the Cluster's GRANTS column", () => {
  it("counts grants only, and the platform's failed checks apart from them", () => {
    const lists = [failedList("ClusterRoleBinding"), failedList("RoleBinding"), failedList("ClusterRole")];
    assert.equal(grantsColumn([grant("platform:edit", true), ...lists]), "1/1, 3 checks failed");
    assert.equal(
      grantsColumn([grant("platform:edit", true), grant("b", false), lists[0]!]),
      "1/2 (1 failed), 1 check failed",
    );
  });

  it("reads a failed list written before `check` existed by its form, as the console does", () => {
    const { check: _, ...older } = failedList("RoleBinding");
    assert.equal(grantsColumn([grant("platform:edit", true), older]), "1/1, 1 check failed");
  });

  it("shows only the failed checks when no grant reaches the cluster, and nothing when it holds none", () => {
    assert.equal(grantsColumn([failedList("ClusterRole")]), "1 check failed");
    assert.equal(grantsColumn([]), "");
    assert.equal(grantsColumn(undefined), "");
  });

  it("says failed grants as before", () => {
    assert.equal(grantsColumn([grant("a", true), grant("b", false), grant("c", true)]), "2/3 (1 failed)");
    assert.equal(grantsColumn([grant("a", true)]), "1/1");
  });
});
