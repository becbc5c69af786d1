import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { callAsAdmin, startServerProcess } from "../testing/server-process.js";
import { GROUP_PATH } from "../testing/test-server.js";

describe("the server as a process", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), "platform-proc-"));
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("every acknowledged write survives kill -9 under concurrent load", async () => {
    const dataDir = tempDir();
    const first = await startServerProcess(dataDir);
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const acknowledged: string[] = [];
    let stop = false;
    let counter = 0;
    const writer = async (w: number) => {
      // Bounded: each writer stops at the kill or after 2,000 writes.
      for (let i = 0; i < 2000 && !stop; i++) {
        const name = `crash-${w}-${counter++}`;
        try {
          const res = await callAsAdmin(first, agent, "POST", `${GROUP_PATH}/teams`, {
            apiVersion: "management.platform/v1",
            kind: "Team",
            metadata: { name },
            spec: { displayName: name },
          });
          if (res.status === 201) acknowledged.push(name);
        } catch {
          return; // connection cut by the kill
        }
      }
    };
    const writers = Array.from({ length: 16 }, (_, w) => writer(w));
    while (acknowledged.length < 200) await new Promise((r) => setTimeout(r, 20));
    first.child.kill("SIGKILL");
    stop = true;
    await Promise.all(writers);
    await first.exited;
    agent.destroy();

    const second = await startServerProcess(dataDir, first.port);
    try {
      const agent2 = new Agent({ keepAlive: true });
      const list = JSON.parse((await callAsAdmin(second, agent2, "GET", `${GROUP_PATH}/teams`)).text) as {
        items: Array<{ metadata: { name: string }; spec: { displayName: string } }>;
      };
      const stored = new Map(list.items.map((t) => [t.metadata.name, t.spec.displayName]));
      const lost = acknowledged.filter((n) => stored.get(n) !== n);
      assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.length} acknowledged writes lost`);
      agent2.destroy();
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
    }
  });

  it("SIGTERM finishes in-flight requests, closes the store and exits 0", async () => {
    const dataDir = tempDir();
    const server = await startServerProcess(dataDir);
    const agent = new Agent({ keepAlive: false });
    const inFlight = Array.from({ length: 20 }, (_, i) =>
      callAsAdmin(server, agent, "POST", `${GROUP_PATH}/teams`, {
        apiVersion: "management.platform/v1",
        kind: "Team",
        metadata: { name: `term-${i}` },
      }),
    );
    await new Promise((r) => setTimeout(r, 5));
    server.child.kill("SIGTERM");
    const results = await Promise.allSettled(inFlight);
    const { code } = await server.exited;
    assert.equal(code, 0, server.output());
    assert.match(server.output(), /SIGTERM: finishing in-flight requests/);
    const created = results.filter((r) => r.status === "fulfilled" && r.value.status === 201).length;
    // Whatever was acknowledged is there after a restart.
    const again = await startServerProcess(dataDir, server.port);
    try {
      const list = JSON.parse((await callAsAdmin(again, new Agent(), "GET", `${GROUP_PATH}/teams`)).text) as {
        items: unknown[];
      };
      assert.equal(list.items.length, created);
    } finally {
      again.child.kill("SIGTERM");
      await again.exited;
    }
  });
});
