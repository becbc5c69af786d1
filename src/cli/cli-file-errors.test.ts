import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { PLATFORM_BIN, runCli } from "../testing/cli-run.js";

/** Bad files and closed pipes end the CLI with a clear message (or quietly), never a stack trace. */
describe("the CLI with files it cannot use and output nobody reads", { timeout: 120_000 }, () => {
  const home = mkdtempSync(join(tmpdir(), "platform-cli-files-"));
  after(() => rmSync(home, { recursive: true, force: true }));
  const noStack = (stderr: string) => {
    assert.doesNotMatch(stderr, /node:events|Unhandled|\n\s+at /, stderr);
  };

  it("restore from a missing file exits 1 saying the file does not exist", async () => {
    const missing = join(home, "missing.backup.gz");
    const run = await runCli(home, ["restore", "--from", missing, "--data-dir", join(home, "data-missing")]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /error: backup file .*missing\.backup\.gz does not exist/);
    noStack(run.stderr);
  });

  it("restore from a directory exits 1 saying it is a directory", async () => {
    const dir = join(home, "a-directory");
    mkdirSync(dir);
    const run = await runCli(home, ["restore", "--from", dir, "--data-dir", join(home, "data-dir")]);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /error: cannot read the backup file .*a-directory: it is a directory/);
    noStack(run.stderr);
  });

  it("backup into a directory, or a directory that does not exist, exits 1 with what is wrong", async () => {
    const data = join(home, "data-backup");
    const store = await runCli(home, ["restore", "--from", join(home, "none"), "--data-dir", data]);
    assert.equal(store.code, 1, store.stderr);
    const intoDir = await runCli(home, ["backup", "--data-dir", data, "--to", home]);
    assert.equal(intoDir.code, 1, intoDir.stderr);
    assert.match(intoDir.stderr, /error: cannot write the backup file .*: it is a directory/);
    const nowhere = join(home, "no-such-dir", "b.gz");
    const intoNowhere = await runCli(home, ["backup", "--data-dir", data, "--to", nowhere]);
    assert.equal(intoNowhere.code, 1, intoNowhere.stderr);
    assert.equal(
      intoNowhere.stderr.trim(),
      `error: cannot write the backup file ${nowhere}: its directory does not exist`,
    );
  });

  it("ends quietly with code 0 when its stdout is closed before it writes (`platform list --help | head`)", async () => {
    const child = spawn(process.execPath, [PLATFORM_BIN, "list", "--help"], {
      env: { PATH: process.env.PATH ?? "", HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The reader goes away before the CLI has started: its first write meets a closed pipe.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((done) => child.on("close", (c) => done(c)));
    assert.equal(stderr, "");
    assert.equal(code, 0);
  });
});
