import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiError } from "../../api/errors.js";
import type { KubeObject } from "../../api/object.js";
import { AdmissionChain } from "../../registry/admission.js";
import { defaultWriteOptions, type WriteOptions } from "../../registry/options.js";
import type { RequestContext } from "../../registry/request-context.js";
import type { KeptWrite } from "../../registry/resource-type.js";
import { Store } from "../../registry/store.js";
import { openSqliteStorage } from "../../storage/sqlite/sqlite-storage.js";
import type { InstanceCaIssuer } from "./instance-ca.js";
import { virtualClusterInstanceKind } from "./virtual-cluster-instance.js";

/**
 * The CA of an instance deployed from a template is made on create (instance-ca.ts), a key pair
 * each time: never for a body its schema refuses, whose 422 still lists the kind's own errors.
 * The issuer here counts what it is asked for, which is what a CA made and thrown away would show.
 */
describe("a virtual cluster instance's CA on create", () => {
  const issued: string[] = [];
  const issuer: InstanceCaIssuer = {
    async issue(instance) {
      issued.push(instance.metadata.name ?? "");
      // Never written in these tests: a dry run and a refusal store nothing.
      return { id: `ca-${issued.length}`, keep: {} as KeptWrite };
    },
  };
  const store = new Store(virtualClusterInstanceKind(issuer), {
    storage: openSqliteStorage(":memory:"),
    admission: new AdmissionChain([]),
  });
  const ctx = (): RequestContext => ({
    user: { name: "alice", subjectKind: "User", groups: [], teams: [] },
    warnings: [],
  });
  const options = (more: Partial<WriteOptions> = {}) => ({ ...defaultWriteOptions("test"), ...more });
  const instance = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: "management.platform/v1",
    kind: "VirtualClusterInstance",
    metadata: { name },
    spec: { clusterRef: { cluster: "far" }, templateRef: { name: "default" }, ...spec },
  });

  it("is made for a create that goes on (a dry run here): the issuer counts", async () => {
    const created = await store.create(ctx(), "p-alpha", instance("kept"), options({ dryRun: true }));
    assert.deepEqual(issued, ["kept"]);
    assert.equal(created.status?.caID, "ca-1");
  });

  it("is not made for a body its schema refuses; the 422 still lists the kind's own errors", async () => {
    const before = issued.length;
    const err: ApiError = await store.create(ctx(), "team-a", instance("refused", { displayName: 5 }), options()).then(
      () => assert.fail("a display name that is a number was accepted"),
      (e: ApiError) => e,
    );
    assert.equal(err.code, 422);
    assert.deepEqual(
      (err.status.details?.causes ?? []).map((c) => `${c.field} ${c.reason}`),
      [
        "spec.displayName FieldValueTypeInvalid",
        // The kind's own rules, after its prepareForCreate's defaults (the placement from the namespace).
        "metadata.namespace FieldValueInvalid",
        "spec.clusterRef.namespace FieldValueInvalid",
      ],
    );
    assert.equal(issued.length, before, "no CA was made for the refused body");
  });
});
