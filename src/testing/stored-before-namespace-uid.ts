import type { ServerConfig } from "../app/start-server.js";
import { rewriteStoredObject } from "./damage-stored-values.js";
import type { KubeControlPlane } from "./kube-control-plane.js";
import { startTestServer, type TestServer } from "./test-server.js";

/**
 * Restarts the platform with the instance at `path` (`spaceinstances/p-web/legacy`, below
 * `/registry/management.platform/`) as an older version of it stored the instance: without
 * `status.namespaceUID`. The cluster's API server is stopped before the platform starts again,
 * so no pass records the UID before `whileClusterDown` runs; the API server is started again
 * after it, whether it threw or not. `server` is stopped keeping its data; the restarted server
 * is handed to `restarted` before anything else happens, for the caller to use and stop.
 */
export async function restartStoredBeforeNamespaceUID(
  server: TestServer,
  kube: Pick<KubeControlPlane, "stopApiServer" | "startApiServer">,
  options: {
    path: string;
    /** How the restarted server is configured (its data dir is the stopped one's). */
    config: Partial<ServerConfig>;
    restarted: (server: TestServer) => void;
    whileClusterDown: () => Promise<void>;
  },
): Promise<void> {
  const dataDir = server.dataDir;
  await server.stop({ keepData: true });
  rewriteStoredObject(dataDir, options.path, (stored) => {
    const { namespaceUID: _never, ...status } = stored.status as Record<string, unknown>;
    return { ...stored, status };
  });
  await kube.stopApiServer();
  try {
    options.restarted(await startTestServer({ ...options.config, dataDir }));
    await options.whileClusterDown();
  } finally {
    await kube.startApiServer();
  }
}
