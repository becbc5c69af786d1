import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { startTestServer, type TestServer } from "./test-server.js";
import { RUN_DIR_VARIABLE } from "./tls-seed.js";

const run = promisify(execFile);

/** A server whose answer to an authenticated request, trusting its CA, is 200. */
async function assertServes(server: TestServer): Promise<void> {
  const res = await server.request("GET", "/kubernetes/management/apis/management.platform/v1/users");
  assert.equal(res.status, 200, res.text);
}

describe("test servers share the run's TLS files (tls-seed.ts)", () => {
  const runDir = mkdtempSync(join(tmpdir(), "tls-seed-test-"));
  process.env[RUN_DIR_VARIABLE] = runDir;
  const servers: TestServer[] = [];
  after(async () => {
    for (const server of servers) await server.stop();
    rmSync(runDir, { recursive: true, force: true });
  });

  it("the first server makes them, the next one in the process starts with them, and both serve", async () => {
    const first = await startTestServer();
    servers.push(first);
    const second = await startTestServer();
    servers.push(second);
    assert.equal(second.caPem, first.caPem);
    assert.deepEqual(readFileSync(join(second.dataDir, "ca.key")), readFileSync(join(first.dataDir, "ca.key")));
    for (const key of ["ca.key", "server.key"])
      assert.equal(statSync(join(second.dataDir, key)).mode & 0o777, 0o600, `${key} is private`);
    await assertServes(first);
    await assertServes(second);
  });

  it("they are kept in the run's directory, where another test file's process takes them", async () => {
    assert.equal(readFileSync(join(runDir, "tls", "ca.crt"), "utf8"), servers[0]!.caPem);
    const script = `
      const { startTestServer } = await import(${JSON.stringify(new URL("./test-server.js", import.meta.url).href)});
      const server = await startTestServer();
      process.stdout.write(server.caPem);
      await server.stop();`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, [RUN_DIR_VARIABLE]: runDir },
    });
    assert.equal(stdout, servers[0]!.caPem);
  });

  it("a data dir the test gives is its own: its server makes its files", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "tls-seed-own-"));
    const own = await startTestServer({ dataDir });
    servers.push(own);
    assert.notEqual(own.caPem, servers[0]!.caPem);
    await assertServes(own);
  });
});
