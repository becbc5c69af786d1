import assert from "node:assert/strict";
import { rewriteStoredObject } from "./damage-stored-values.js";
import type { KubeControlPlane } from "./kube-control-plane.js";
import { REAL_CLUSTER_RESYNC_MS } from "./platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "./test-server.js";

/** The status fields of an instance (a space, a virtual cluster instance) that a move concerns. */
interface MoveStatus {
  reason?: string;
  namespaceUID?: string;
  movedFromProjectUID?: string;
  movedFromProject?: string;
}

/** Instances of one kind, as a move test reaches them through the platform's API. */
export interface MovableInstances<S extends MoveStatus> {
  statusOf(project: string, name: string): Promise<S>;
  waitForStatus(project: string, name: string, check: (s: S) => boolean): Promise<S>;
  move(name: string, from: string, to: string): Promise<void>;
}

/** Which instances move: the first of `names` is the one stored as an older version left it. */
export interface StoredBeforeMove {
  plural: "spaceinstances" | "virtualclusterinstances";
  names: readonly [string, ...string[]];
  from: string;
  to: string;
}

/**
 * Moves instances as an older version of the platform left them: the platform restarts (as the
 * tests against a real control plane start it) with the first of `names` stored without
 * `status.namespaceUID`, and the cluster's API server stopped, so that no pass records the UID
 * before the move. Once each of `names` was looked at since the restart (ClusterUnreachable), and
 * the UID is seen still absent, all are moved from project `from` to `to`, the first then naming
 * the project it left by its UID, not its name; the API server is started again after, whether that failed or not.
 * `server` is stopped keeping its data; the restarted server is handed to `restarted` before
 * anything else happens, for the caller to use and stop.
 */
export async function moveStoredBeforeNamespaceUID<S extends MoveStatus>(
  server: TestServer,
  kube: Pick<KubeControlPlane, "stopApiServer" | "startApiServer">,
  { plural, names, from, to }: StoredBeforeMove,
  instances: MovableInstances<S>,
  restarted: (server: TestServer) => void,
): Promise<void> {
  const dataDir = server.dataDir;
  await server.stop({ keepData: true });
  rewriteStoredObject(dataDir, `${plural}/p-${from}/${names[0]}`, (stored) => {
    const { namespaceUID: _never, ...status } = stored.status as Record<string, unknown>;
    return { ...stored, status };
  });
  await kube.stopApiServer();
  try {
    const again = await startTestServer({
      dataDir,
      clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS,
      allowLocalEndpoints: true,
    });
    restarted(again);
    // Each looked at since the restart: the reason of the next look shows it was after the move.
    for (const name of names) await instances.waitForStatus(from, name, (s) => s.reason === "ClusterUnreachable");
    assert.equal((await instances.statusOf(from, names[0])).namespaceUID, undefined);
    for (const name of names) await instances.move(name, from, to);
    const left = await again.request("GET", `${GROUP_PATH}/projects/${from}`);
    const moved = await instances.statusOf(to, names[0]);
    assert.equal(moved.movedFromProjectUID, left.json.metadata.uid);
    assert.equal(moved.movedFromProject, undefined);
  } finally {
    await kube.startApiServer();
  }
}
