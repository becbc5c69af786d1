import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** bin/platform.js of this checkout (dist/testing/ → repo root). */
export const PLATFORM_BIN = resolve(import.meta.dirname, "..", "..", "bin", "platform.js");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `platform` executable with HOME, its config and KUBECONFIG inside `home`. Async
 * spawn: a server under test in this process must keep answering while the CLI waits.
 */
export function runCli(
  home: string,
  args: string[],
  env: Record<string, string> = {},
  /** What the CLI reads on stdin (it sees end of input right after it). */
  input = "",
): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [PLATFORM_BIN, ...args], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        PLATFORM_CONFIG: join(home, "config.json"),
        KUBECONFIG: join(home, "kubeconfig"),
        ...env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/**
 * A new home (its directory's name starting with `prefix`) whose CLI is logged in to `server` with
 * `key`, trusting the server's CA (written to ca.crt in the home). With `reuseKey` the CLI keeps
 * `key` itself rather than making a key of its own (`--reuse-key`). Fails the test when the login
 * does.
 */
export async function loggedInHome(
  server: { url: string; caPem?: string },
  key: string,
  options: { prefix: string; reuseKey: boolean },
): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), options.prefix));
  const caFile = join(home, "ca.crt");
  writeFileSync(caFile, server.caPem ?? "");
  const args = ["login", server.url, "--access-key", key, "--certificate-authority", caFile];
  const login = await runCli(home, options.reuseKey ? [...args, "--reuse-key"] : args);
  assert.equal(login.code, 0, login.stderr);
  return home;
}
