import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import type { Authorizer } from "../authz/contract.js";
import { listHolders, NAMESPACE_CLAIM_GUARDS } from "../kinds/held-namespaces.js";
import type { AdmissionAttributes } from "../registry/admission.js";
import { encodeObject } from "../registry/codec.js";
import { SYSTEM_USER } from "../registry/request-context.js";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { NamespaceClaimsAdmission } from "./namespace-claims.js";

const API = "management.platform/v1";

/**
 * A held namespace with no guard key, as a restore leaves every one (a backup carries no guard
 * keys: src/backup/backup-stream.ts), and the one interleaving where only the guard keeps two
 * claims from both committing: a same-name create in the old project checked before a move of
 * the holder commits, written after. The create does not count the space it would replace as a
 * holder (it is AlreadyExists while that space is there), the move does not count its source;
 * so the create must carry a guard that the move's commit invalidates, though there was none to
 * read. Run step by step: the plugin's check, the move through the API, then the create's
 * transaction as the Store writes it (the object's key and the guards, in one transaction).
 * Two replicas racing the same steps: src/e2e/guards-after-restore.test.ts.
 */
describe("namespace claims of a namespace held without a guard key (after a restore)", { timeout: 60_000 }, () => {
  let server: TestServer;
  const guards = () => server.registry.keptKeys(NAMESPACE_CLAIM_GUARDS);
  const space = (name: string): KubeObject => ({
    apiVersion: API,
    kind: "SpaceInstance",
    metadata: { name, namespace: "p-one" },
    spec: { clusterRef: { cluster: "c1", namespace: name } },
  });

  before(async () => {
    server = await startTestServer();
    await postObject(server, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
    for (const name of ["one", "two"]) {
      await postObject(server, "projects", { metadata: { name }, spec: { allowedClusters: [{ name: "*" }] } });
    }
  });
  after(async () => {
    await server?.stop();
  });

  it("a same-name create checked before the holder's move commits cannot commit after it", async () => {
    await postObject(server, "namespaces/p-one/spaceinstances", space("twin"));
    // What a restore leaves: the holder, and no guard key for its namespace.
    assert.ok(await guards().remove("c1/twin"));

    const plugin = new NamespaceClaimsAdmission(
      { authorize: async () => ({ allowed: true }) } as Pick<Authorizer, "authorize">,
      { listHolders: (cluster) => listHolders(server.registry, cluster), guards },
    );
    const store = server.registry.store("spaceinstances");
    const newcomer = space("twin");
    const attrs: AdmissionAttributes = {
      operation: "CREATE",
      resourceType: store.rt,
      subresource: "",
      object: newcomer,
      user: SYSTEM_USER,
      dryRun: false,
      warnings: [],
      guards: [],
    };
    await plugin.validate(attrs);
    assert.equal(attrs.guards.length, 1, "a guard, though there was none to read");

    const moved = await server.request("POST", `${GROUP_PATH}/projects/two/migratespaceinstance`, {
      body: {
        apiVersion: API,
        kind: "ProjectMigrateSpaceInstance",
        sourceSpaceInstance: { name: "twin", namespace: "p-one" },
      },
    });
    assert.equal(moved.status, 201, moved.text);

    const key = store.key("p-one", "twin");
    await assert.rejects(
      server.storage.txn([{ type: "create", key, value: encodeObject(newcomer) }, ...attrs.guards.map((g) => g.op)]),
      (err: Error & { key?: string }) => err.key === guards().key("c1/twin"),
    );
    assert.equal(await server.storage.get(key), undefined, "nothing of the create is stored");
  });
});
