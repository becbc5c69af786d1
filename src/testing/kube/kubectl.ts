/** Runs the real kubectl (Debian's /usr/bin/kubectl) with a given kubeconfig. */
import { spawn } from "node:child_process";

export const KUBECTL_BINARY = "/usr/bin/kubectl";

/** kubectl ended with a non-zero status; `stderr` is what it said (a Forbidden, a NotFound …). */
export class KubectlError extends Error {
  constructor(
    readonly args: string[],
    readonly exitCode: number | null,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(`kubectl ${args.join(" ")} failed (${exitCode}): ${stderr.trim()}`);
    this.name = "KubectlError";
  }
}

/** Resolves with kubectl's stdout; a failure rejects with a KubectlError. `input` goes to its stdin (`-f -`). */
export function runKubectl(kubeconfigPath: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL_BINARY, ["--kubeconfig", kubeconfigPath, ...args], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(stdout);
      else reject(new KubectlError(args, code, stdout, stderr));
    });
    child.stdin.end(input ?? "");
  });
}
