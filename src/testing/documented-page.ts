import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PLATFORM_BIN, runCli } from "./cli-run.js";
import { blockWith, runShell, type ShellBlock, type ShellRun, shellBlocks } from "./documented-shell.js";
import type { TestServer } from "./test-server.js";

/**
 * Runs the ```sh examples of a page of docs/ as a reader pastes them, against a test server: the
 * one way the docs tests (src/e2e/*-docs.test.ts) run a page and check that none was left out.
 */

/** The address the pages show for a server started on this machine (README.md's `npm start`). */
export const DOCUMENTED_ADDRESS = "https://127.0.0.1:8443";

/** Where the examples run, as the README leaves a reader after `npm start` and `platform login`. */
export interface DocsWorkspace {
  /** The working directory: its `data` is the server's data directory. */
  dir: string;
  /** HOME (the CLI's config is there) and `platform` on the PATH. */
  env: Record<string, string>;
}

/**
 * A directory whose `data` is `server`'s data directory (as `platform start --data-dir ./data`
 * makes it), with `platform` on the PATH logged in as the admin (docs/cli.md's `platform login`).
 */
export async function docsWorkspace(server: TestServer, prefix: string): Promise<DocsWorkspace> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  symlinkSync(server.dataDir, join(dir, "data"));
  const bin = join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "platform"), `#!/bin/sh\nexec "${process.execPath}" "${PLATFORM_BIN}" "$@"\n`);
  chmodSync(join(bin, "platform"), 0o755);
  const home = join(dir, "home");
  mkdirSync(home);
  writeFileSync(join(home, "ca.crt"), server.caPem ?? "");
  const login = await runCli(home, [
    "login",
    server.url,
    "--access-key",
    server.adminKey,
    "--certificate-authority",
    join(home, "ca.crt"),
  ]);
  assert.equal(login.code, 0, login.stderr);
  return {
    dir,
    env: { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: home, PLATFORM_CONFIG: join(home, "config.json") },
  };
}

export interface PageRunOptions {
  /** Lines run before the block: a reader who pasted them first (variables another block set). */
  prelude?: readonly string[];
  /** Environment added to the workspace's. */
  env?: Record<string, string>;
}

/** A page's shell blocks, run in a workspace, with what the test puts in for the page's placeholders. */
export class DocumentedPage {
  private readonly blocks: ShellBlock[];
  private readonly ran = new Set<string>();

  constructor(
    readonly doc: string,
    private readonly workspace: () => DocsWorkspace,
    /** Text the page shows for this machine's values (an address, a directory) and what the test uses. */
    private readonly replacements: () => ReadonlyArray<readonly [string, string]>,
  ) {
    this.blocks = shellBlocks(doc);
  }

  /** The one block containing `marker`. */
  block(marker: string): string {
    return blockWith(
      this.blocks.map((b) => b.text),
      marker,
    );
  }

  /**
   * The variables the block containing `marker` sets (its one-line assignments), for a block the
   * page says continues it.
   */
  variables(marker: string): string[] {
    return this.block(marker)
      .split("\n")
      .filter((line) => /^(export )?[A-Z_]+=/.test(line) && !line.includes("<<"));
  }

  /** Runs the block containing `marker`; fails the test when it ends with a non-zero exit code. */
  async run(marker: string, options: PageRunOptions = {}): Promise<ShellRun> {
    const block = this.block(marker);
    const mark = this.blocks.find((b) => b.text === block)?.notRunBecause;
    assert.equal(mark, undefined, `${this.doc} marks the block with "${marker}" as not run`);
    this.ran.add(block);
    let script = [...(options.prelude ?? []), block].join("\n");
    for (const [shown, used] of this.replacements()) script = script.replaceAll(shown, used);
    const { dir, env } = this.workspace();
    const run = await runShell(script, dir, { ...env, ...options.env });
    assert.equal(run.code, 0, `${this.doc}: the block with "${marker}" failed:\n${run.stderr}\n${run.stdout}`);
    return run;
  }

  /** The blocks neither run nor marked as not run by the page: what a test of the page left out. */
  leftOut(): string[] {
    return this.blocks.filter((b) => b.notRunBecause === undefined && !this.ran.has(b.text)).map((b) => b.text);
  }

  /** The reasons the page gives for the blocks it marks as not run. */
  notRunReasons(): string[] {
    return this.blocks.flatMap((b) => (b.notRunBecause === undefined ? [] : [b.notRunBecause]));
  }
}
