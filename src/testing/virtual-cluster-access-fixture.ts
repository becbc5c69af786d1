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
 * share: a server whose own controllers are stopped, with local cluster c1 and project web, and
 * instances in p-web that are Ready without a deployment, since the test sets the phase.
 */

/** A test server for an access controller the test starts itself; its own controllers would set the phase from the (absent) deployment. */
export async function startServerForAccessController(config: Partial<ServerConfig> = {}): Promise<TestServer> {
  const server = await startTestServer(config);
  await server.controllers.stop();
  await postObject(server, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
  await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
  return server;
}

/**
 * Instance p-web/`name` on cluster c1, owned by alice, at `endpoint` (its endpoint annotation;
 * none when absent), made Ready as a deploy would. `fromTemplate`: deployed from the default
 * template, so the platform keeps its CA and the controller needs no host cluster.
 */
export async function readyInstance(
  server: TestServer,
  name: string,
  options: { endpoint?: string; fromTemplate: boolean },
): Promise<void> {
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
}

/** The server's kept CAs of virtual clusters, read with its key (a store without it cannot decrypt them). */
export async function keptCasOf(server: TestServer): Promise<VirtualClusterCaStore> {
  const { cipher } = await loadKeys({ host: "127.0.0.1", port: 0, dataDir: server.dataDir }, server.dataDir);
  return new VirtualClusterCaStore(server.registry, cipher);
}

/** The `status.access` of instance p-web/`name` (empty while none is written). */
export async function accessOf(server: TestServer, name: string): Promise<InsideBinding[]> {
  const res = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/${name}`);
  return res.json.status?.access ?? [];
}

/** A virtual cluster's API server stand-in on 127.0.0.1 that drops every connection, counting them: one for each pass that gets as far as calling it. */
export interface DroppingEndpoint {
  url: string;
  port: number;
  connections(): number;
  close(): void;
}

export async function droppingEndpoint(): Promise<DroppingEndpoint> {
  let connections = 0;
  const endpoint = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
  const port = (endpoint.address() as { port: number }).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    close: () => endpoint.close(),
  };
}
