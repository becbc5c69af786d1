import { spawn } from "node:child_process";
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
