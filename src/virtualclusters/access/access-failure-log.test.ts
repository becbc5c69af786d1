import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../../api/endpoint-annotations.js";
import { loadKeys } from "../../app/keys.js";
import { systemContext } from "../../registry/request-context.js";
import { postObject } from "../../testing/gateway-fixture.js";
import { startTestServer, type TestServer } from "../../testing/test-server.js";
import { VirtualClusterCaStore } from "../ca-store.js";
import { VirtualClusterAccessController } from "./virtual-cluster-access-controller.js";

/** Polling bound for the passes (a hang guard; the test counts passes, never waits for a time). */
const POLLS = 400;
const POLL_MS = 25;
/** Passes of the controller seen before counting: several resyncs and retries. */
const PASSES = 6;

/**
 * A virtual cluster whose endpoint cannot be reached (here: every connection is dropped, as an
 * ingress host that does not resolve fails every pass alike) is logged once by the access
 * controller, not at every retry and resync. The endpoint counts the passes: one connection each.
 */
describe("the access controller's log while a virtual cluster stays unreachable", () => {
  let server: TestServer;
  let endpoint: Server;
  let connections = 0;
  let controller: VirtualClusterAccessController | undefined;
  const lines: Array<Record<string, unknown>> = [];

  before(async () => {
    endpoint = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
    server = await startTestServer({ allowLocalEndpoints: true });
    // The server's own controllers would set the phase from the (absent) deployment; this test sets it.
    await server.controllers.stop();
    await postObject(server, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
    await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
  });
  after(async () => {
    await controller?.stop();
    await server?.stop();
    endpoint?.close();
  });

  it("one error line for the instance over many passes that fail alike", async () => {
    const port = (endpoint.address() as { port: number }).port;
    await postObject(server, "namespaces/p-web/virtualclusterinstances", {
      metadata: { name: "dev", annotations: { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: `https://127.0.0.1:${port}` } },
      // Deployed from a template: the platform keeps its CA, so the controller needs no host cluster.
      spec: { clusterRef: { cluster: "c1" }, templateRef: { name: "default" }, owner: { user: "alice" } },
    });
    await server.registry.store("virtualclusterinstances").guaranteedUpdate(
      systemContext(),
      "p-web",
      "dev",
      (obj) => {
        obj.status = { ...obj.status, phase: "Ready" };
        return obj;
      },
      "status",
    );
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).trim().split("\n")) lines.push(JSON.parse(line));
        done();
      },
    });
    // The server's kept CAs, read with its key.
    const { cipher } = await loadKeys({ host: "127.0.0.1", port: 0, dataDir: server.dataDir }, server.dataDir);
    controller = new VirtualClusterAccessController(
      server.registry,
      server.informers,
      new VirtualClusterCaStore(server.registry, cipher),
      { allowLocal: true },
      // Short resyncs: the passes come quickly; the test counts them.
      { resyncMs: 20 },
      pino({ level: "warn" }, sink),
    );
    await controller.start();
    for (let i = 0; i < POLLS && connections < PASSES; i++) await sleep(POLL_MS);
    assert.ok(connections >= PASSES, `${connections} passes; ${JSON.stringify(lines)}`);
    const logged = lines.filter((l) => l.controller === "virtualcluster-access" && l.key === "p-web/dev");
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.match(
      String((logged[0]!.err as { message?: string }).message),
      new RegExp(`^cannot reach the cluster at https://127\\.0\\.0\\.1:${port}: ECONNRESET`),
    );
  });
});
