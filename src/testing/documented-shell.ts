import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * The ```sh blocks of a page of docs/, read as written, and a way to run one in bash the way a
 * reader pastes it: a test of them tests what users copy.
 */

/**
 * Every ```sh block of `doc`, in page order, as the text between its fences; a block indented
 * under a list item loses that indentation, as it does when pasted.
 */
export function documentedShellBlocks(doc: string): string[] {
  const text = readFileSync(doc, "utf8");
  return [...text.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map(([, indent, body]) =>
    body!
      .split("\n")
      .map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line))
      .join("\n"),
  );
}

/** The one block of `blocks` containing `marker`; anything else is an error naming the marker. */
export function blockWith(blocks: readonly string[], marker: string): string {
  const found = blocks.filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`${found.length} shell blocks contain "${marker}", expected one`);
  return found[0]!;
}

export interface ShellRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` in `bash -eo pipefail` (the first failing command ends it, as it would stop a
 * reader) in `cwd` with `env` added. Asynchronous: a server under test in this process must keep
 * answering while the script runs.
 */
export function runShell(script: string, cwd: string, env: Record<string, string>): Promise<ShellRun> {
  return new Promise((done) => {
    execFile(
      "bash",
      ["-eo", "pipefail", "-c", script],
      { cwd, env: { ...process.env, ...env }, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}
