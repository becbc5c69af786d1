import { createServer } from "node:net";
import { VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../api/endpoint-annotations.js";
import { loadKeys } from "../app/keys.js";
import type { ServerConfig } from "../app/start-server.js";
import type { InsideBinding } from "../kinds/virtual-cluster-instance/virtual-cluster-instance-status.js";
import { systemContext } from "../registry/request-context.js";
import { VirtualClusterCaStore } from "../virtualclusters/ca-store.js";
import { postObject } from "./gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "./test-server.js";

/**
 * What the tests of the virtual cluster access controller run on its own (virtualclusters/access/)
 * share: a server whose own controllers are stopped (they would set the phase from the absent
 * deployment; the test sets it), with local cluster c1 and project web, and a virtual cluster's
 * API server stand-in that drops every connection.
 */
export interface AccessControllerFixture {
  server: TestServer;
  /** The stand-in's URL on 127.0.0.1 and its port. */
  endpoint: { url: string; port: number };
  /** The connections the stand-in dropped: one for each pass that got as far as calling it. */
  connections(): number;
  /**
   * Instance p-web/`name` on cluster c1, owned by alice, at `endpoint` (its endpoint annotation;
   * none when absent), made Ready as a deploy would. `fromTemplate`: deployed from the default
   * template, so the platform keeps its CA and the controller needs no host cluster.
   */
  readyInstance(name: string, options: { endpoint?: string; fromTemplate: boolean }): Promise<void>;
  /** The `status.access` of instance p-web/`name` (empty while none is written). */
  accessOf(name: string): Promise<InsideBinding[]>;
  /** The server's kept CAs of virtual clusters, read with its key (a store without it cannot decrypt them). */
  keptCas(): Promise<VirtualClusterCaStore>;
  stop(): Promise<void>;
}

export async function startAccessControllerFixture(
  config: Partial<ServerConfig> = {},
): Promise<AccessControllerFixture> {
  let connections = 0;
  const standIn = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
  const port = (standIn.address() as { port: number }).port;
  const server = await startTestServer(config);
  await server.controllers.stop();
  await postObject(server, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
  await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
  return {
    server,
    endpoint: { url: `https://127.0.0.1:${port}`, port },
    connections: () => connections,
    async readyInstance(name, options) {
      const annotations = options.endpoint ? { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: options.endpoint } : undefined;
      await postObject(server, "namespaces/p-web/virtualclusterinstances", {
        metadata: { name, ...(annotations ? { annotations } : {}) },
        spec: {
          clusterRef: { cluster: "c1" },
          ...(options.fromTemplate ? { templateRef: { name: "default" } } : {}),
          owner: { user: "alice" },
        },
      });
      await server.registry.store("virtualclusterinstances").guaranteedUpdate(
        systemContext(),
        "p-web",
        name,
        (obj) => {
          obj.status = { ...obj.status, phase: "Ready" };
          return obj;
        },
        "status",
      );
    },
    async accessOf(name) {
      const res = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/${name}`);
      return res.json.status?.access ?? [];
    },
    async keptCas() {
      const { cipher } = await loadKeys({ host: "127.0.0.1", port: 0, dataDir: server.dataDir }, server.dataDir);
      return new VirtualClusterCaStore(server.registry, cipher);
    },
    async stop() {
      await server.stop();
      standIn.close();
    },
  };
}
