import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * The ```sh blocks of a page of docs/, read as written, and a way to run one in bash the way a
 * reader pastes it: a test of them tests what users copy.
 */

/**
 * The comment a page puts on the line right before a ```sh fence whose block the docs tests do
 * not run, with why (e.g. it needs a running virtual cluster). The page's own text must say why
 * nothing is lost; the comment is what the runner reads, invisible to readers.
 */
const NOT_RUN = /^<!-- not run by the docs tests: (.+) -->$/;

export interface ShellBlock {
  /** The text between the fences; indentation under a list item removed, as pasting does. */
  text: string;
  /** Why the docs tests do not run it (the page's NOT_RUN comment), or undefined. */
  notRunBecause: string | undefined;
}

/** Every ```sh block of `doc`, in page order, with the page's mark on those the tests do not run. */
export function shellBlocks(doc: string): ShellBlock[] {
  const text = readFileSync(doc, "utf8");
  return [...text.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map((m) => {
    const [, indent, body] = m;
    const lineBefore = text.slice(0, m.index).trimEnd().split("\n").at(-1)?.trim() ?? "";
    return {
      text: body!
        .split("\n")
        .map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line))
        .join("\n"),
      notRunBecause: NOT_RUN.exec(lineBefore)?.[1],
    };
  });
}

/**
 * Every ```sh block of `doc`, in page order, as the text between its fences; a block indented
 * under a list item loses that indentation, as it does when pasted.
 */
export function documentedShellBlocks(doc: string): string[] {
  return shellBlocks(doc).map((b) => b.text);
}

/** The one block of `blocks` containing `marker`; anything else is an error naming the marker. */
export function blockWith(blocks: readonly string[], marker: string): string {
  const found = blocks.filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`${found.length} shell blocks contain "${marker}", expected one`);
  return found[0]!;
}

/**
 * What the page shows a command prints: the `# …` comment ending the one line of `block` that
 * contains `command`, without the `#`. An error when there is no such line or comment, so a test
 * reading it fails once the page stops showing it.
 */
export function shownOutput(block: string, command: string): string {
  const lines = block.split("\n").filter((line) => line.includes(command));
  if (lines.length !== 1) throw new Error(`${lines.length} lines contain "${command}", expected one`);
  const shown = /\s#\s+(.*)$/.exec(lines[0]!)?.[1];
  if (shown === undefined) throw new Error(`the line with "${command}" shows no output`);
  return shown.trim();
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
