/**
 * The namespace-claim race the replica tests play: on two replicas of one etcd, a space of
 * project one moves to project two while a space of the same name is created in project one.
 * The guard of its namespace lets exactly one of them commit, and it must be the move.
 */
import assert from "node:assert/strict";
import { GROUP_PATH, type TestServer } from "./test-server.js";

const API = "management.platform/v1";

/** A space on cluster c1, in the namespace named (or its own name's). */
export function spaceOnC1(name: string, namespace?: string) {
  return {
    apiVersion: API,
    kind: "SpaceInstance",
    metadata: { name },
    spec: { clusterRef: { cluster: "c1", ...(namespace ? { namespace } : {}) } },
  };
}

/**
 * Moves space `name` from p-one to project two on `mover` while `creator` creates `name` in p-one
 * again; fails unless the move won, the newcomer got 409, and the moved space kept its namespace.
 */
export async function raceMoveAgainstSameNameCreate(mover: TestServer, creator: TestServer, name: string) {
  const [moved, newcomer] = await Promise.all([
    mover.request("POST", `${GROUP_PATH}/projects/two/migratespaceinstance`, {
      body: { apiVersion: API, kind: "ProjectMigrateSpaceInstance", sourceSpaceInstance: { name, namespace: "p-one" } },
    }),
    // Before the move commits it finds the source (AlreadyExists), after it the moved one.
    creator.request("POST", `${GROUP_PATH}/namespaces/p-one/spaceinstances`, { body: spaceOnC1(name) }),
  ]);
  assert.equal(moved.status, 201, moved.text);
  assert.equal(newcomer.status, 409, newcomer.text);
  const kept = await creator.request("GET", `${GROUP_PATH}/namespaces/p-two/spaceinstances/${name}`);
  assert.equal(kept.json.spec.clusterRef.namespace, name);
  assert.equal((await creator.request("GET", `${GROUP_PATH}/namespaces/p-one/spaceinstances/${name}`)).status, 404);
}
