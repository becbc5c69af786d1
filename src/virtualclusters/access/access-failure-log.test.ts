import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import type { TestServer } from "../../testing/test-server.js";
import {
  type AccessControllerFixture,
  startAccessControllerFixture,
} from "../../testing/virtual-cluster-access-fixture.js";
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
  let fixture: AccessControllerFixture;
  let server: TestServer;
  let controller: VirtualClusterAccessController | undefined;
  const lines: Array<Record<string, unknown>> = [];

  before(async () => {
    fixture = await startAccessControllerFixture({ allowLocalEndpoints: true });
    server = fixture.server;
  });
  after(async () => {
    await controller?.stop();
    await fixture?.stop();
  });

  it("one error line for the instance over many passes that fail alike", async () => {
    // From a template: the platform keeps its CA, so the controller needs no host cluster.
    await fixture.readyInstance("dev", { endpoint: fixture.endpoint.url, fromTemplate: true });
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).trim().split("\n")) lines.push(JSON.parse(line));
        done();
      },
    });
    controller = new VirtualClusterAccessController(
      server.registry,
      server.informers,
      await fixture.keptCas(),
      { allowLocal: true },
      // Short resyncs: the passes come quickly; the test counts them.
      { resyncMs: 20 },
      pino({ level: "warn" }, sink),
    );
    await controller.start();
    for (let i = 0; i < POLLS && fixture.connections() < PASSES; i++) await sleep(POLL_MS);
    assert.ok(fixture.connections() >= PASSES, `${fixture.connections()} passes; ${JSON.stringify(lines)}`);
    const logged = lines.filter((l) => l.controller === "virtualcluster-access" && l.key === "p-web/dev");
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.match(
      String((logged[0]!.err as { message?: string }).message),
      new RegExp(`^cannot reach the cluster at https://127\\.0\\.0\\.1:${fixture.endpoint.port}: ECONNRESET`),
    );
  });
});
