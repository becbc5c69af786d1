import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { PLATFORM_BIN } from "../testing/cli-run.js";
import { freePort } from "../testing/server-process.js";

/** `platform start` as an operator sees it: the banner alone on stdout, absolute paths, the real address. */
describe("platform start banner", () => {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  function start(args: string[], env: Record<string, string> = {}) {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "platform-start-")));
    dirs.push(cwd);
    const child = spawn(process.execPath, [PLATFORM_BIN, "start", "--data-dir", "data", ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: cwd, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out = { stdout: "", stderr: "" };
    child.stdout.on("data", (d: Buffer) => {
      out.stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      out.stderr += d.toString();
    });
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    return { cwd, child, out, exited };
  }

  it("prints absolute paths and the address it listens on, and nothing else on stdout", async () => {
    const port = await freePort();
    const { cwd, child, out, exited } = start(["--listen", `0.0.0.0:${port}`]);
    const deadline = Date.now() + 60_000;
    while (!out.stdout.includes("try:") && Date.now() < deadline && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 100));
    }
    // The trust hint works as printed: curl verifies the server against the CA it names.
    const curl = /^ {2}trust it: +(curl .*)$/m.exec(out.stdout)?.[1] ?? "";
    const [command, ...curlArgs] = curl.split(" ");
    const readyz =
      command === "curl"
        ? await promisify(execFile)(command, ["-sS", ...curlArgs]).catch((err: Error) => ({ stdout: String(err) }))
        : { stdout: `no curl command in the banner:\n${out.stdout}` };
    child.kill("SIGTERM");
    assert.equal(await exited, 0, out.stderr);
    assert.equal(readyz.stdout, "ok");
    const data = join(cwd, "data");
    const ca = join(data, "ca.crt");
    assert.deepEqual(out.stdout.trimEnd().split("\n"), [
      `platform is listening on 0.0.0.0:${port} (every address of this machine)`,
      `console:           https://127.0.0.1:${port}/`,
      `API:               https://127.0.0.1:${port}/kubernetes/management`,
      `data dir:          ${data}`,
      `CA certificate:    ${ca}`,
      `  trust it:        curl --cacert ${ca} https://127.0.0.1:${port}/readyz`,
      `                   browsers, the OS: import it as a trusted authority (README.md, "Trusting the server's CA")`,
      `admin access key:  ${join(data, "admin-access-key")}`,
      `admin kubeconfig:  ${join(data, "admin.kubeconfig")}`,
      `try:  kubectl --kubeconfig ${join(data, "admin.kubeconfig")} get users`,
    ]);
    assert.match(out.stderr, /SIGTERM: finishing in-flight requests/);
  });

  it("a too short PLATFORM_BOOTSTRAP_KEY fails with a message naming the variable", async () => {
    const port = await freePort();
    const { out, exited } = start(["--listen", `127.0.0.1:${port}`], { PLATFORM_BOOTSTRAP_KEY: "short" });
    assert.equal(await exited, 1);
    assert.match(out.stderr, /PLATFORM_BOOTSTRAP_KEY must be at least 32 characters \(it has 5\)/);
    assert.doesNotMatch(out.stderr, /\n\s+at /, "no stack trace");
    assert.equal(out.stdout, "");
  });
});
