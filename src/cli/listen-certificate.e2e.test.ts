import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ADMIN_KUBECONFIG_FILE } from "../auth/bootstrap.js";
import { freePort, type ServerProcess, startServerProcess } from "../testing/server-process.js";

/** `platform start --listen HOST:PORT` on `dataDir` (a loopback address other than 127.0.0.1, so no default name covers it). */
async function startOn(dataDir: string, host: string): Promise<ServerProcess> {
  const port = await freePort();
  return startServerProcess(dataDir, port, ["--listen", `${host}:${port}`]);
}

async function stop(server: ServerProcess): Promise<void> {
  server.child.kill("SIGTERM");
  await server.exited;
}

/** Real kubectl with the admin kubeconfig `platform start` wrote (its server is the listen address). */
function kubectlGetUsers(dataDir: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(
    "/usr/bin/kubectl",
    ["--kubeconfig", join(dataDir, ADMIN_KUBECONFIG_FILE), "get", "users", "-o", "name"],
    { encoding: "utf8", timeout: 60_000 },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("platform start --listen HOST:PORT: the generated certificate names HOST", () => {
  let dataDir: string;

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), "platform-listen-cert-"));
  });

  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it("kubectl reaches a server listening on 127.0.0.2; a later start on another address reissues the certificate, same CA", async () => {
    const first = await startOn(dataDir, "127.0.0.2");
    try {
      const run = kubectlGetUsers(dataDir);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /^user\.management\.platform\/admin$/m);
    } finally {
      await stop(first);
    }
    const caBefore = readFileSync(join(dataDir, "ca.crt"), "utf8");

    const second = await startOn(dataDir, "127.0.0.3");
    try {
      const run = kubectlGetUsers(dataDir);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(readFileSync(join(dataDir, "ca.crt"), "utf8"), caBefore, "the CA clients trust is kept");
      const cert = new X509Certificate(readFileSync(join(dataDir, "server.crt"), "utf8"));
      assert.equal(cert.checkIP("127.0.0.3"), "127.0.0.3");
      assert.equal(cert.checkIP("127.0.0.2"), undefined, "the reissued certificate names the hosts of this start");
    } finally {
      await stop(second);
    }
  });
});
