import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { rawUpgrade } from "../testing/raw-upgrade.js";
import { type ServerProcess, startServerProcess } from "../testing/server-process.js";

/**
 * Requests that once ended the server process: the gateway's refusal of a name whose
 * percent-encoding does not decode threw past every handler. Only a process of its own shows
 * that (a test runner keeps its own process alive through an unhandled rejection).
 */
describe("hostile paths against a server process", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "platform-paths-"));
  let server: ServerProcess;

  before(async () => {
    server = await startServerProcess(dataDir);
  });
  after(async () => {
    if (server.child.exitCode === null) {
      server.child.kill("SIGTERM");
      await server.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const PATHS = [
    "/kubernetes/cluster/%ZZ/api",
    "/kubernetes/cluster/%E0%A4%A/api/v1/pods",
    "/kubernetes/project/%E0%A4%A/virtualcluster/x/api",
  ];

  it("answers each with a 400 Status, with or without credentials, and keeps serving", async () => {
    for (const path of PATHS) {
      for (const token of [undefined, "not-a-key", server.adminKey]) {
        const res = await get(server, path, token);
        assert.equal(res.status, 400, `${path}: ${res.text}`);
        assert.equal(JSON.parse(res.text).kind, "Status");
        const ready = await get(server, "/readyz");
        assert.equal(ready.status, 200, `the server serves after ${path}:\n${server.output().slice(-2000)}`);
      }
    }
    assert.equal(server.child.exitCode, null, "the process is running");
  });

  it("answers each as an upgrade with a 400 Status on the socket, and keeps serving", async () => {
    for (const path of PATHS) {
      const head = await rawUpgrade(server, path);
      assert.match(head, /^HTTP\/1\.1 400 /, head);
      assert.equal((await get(server, "/readyz")).status, 200, `the server serves after upgrading ${path}`);
    }
    assert.equal(server.child.exitCode, null, "the process is running");
  });
});

/** A GET of `path` as written, on a connection of its own. */
function get(server: ServerProcess, path: string, token?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const req = request(
      { host: "127.0.0.1", port: server.port, path, headers, ca: server.caPem, agent: false },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => {
          text += c.toString("utf8");
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}
