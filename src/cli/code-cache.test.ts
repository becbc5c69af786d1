import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { PLATFORM_BIN } from "../testing/cli-run.js";

/**
 * bin/platform.js runs the bundle compiled from V8's code cache of an earlier run, kept in the
 * user's cache directory (bin/code-cache.js). The executable is copied beside a stand-in bundle.
 */
describe("the CLI's code cache", () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-code-cache-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const cli = join(dir, "dist", "cli");
  mkdirSync(cli, { recursive: true });
  mkdirSync(join(dir, "bin"));
  for (const file of ["platform.js", "code-cache.js", "package.json"]) {
    copyFileSync(join(dirname(PLATFORM_BIN), file), join(dir, "bin", file));
  }
  const bundle = join(cli, "platform-cli.cjs");
  let build = 0;
  /** A new build of the stand-in bundle, written after the last (as `npm run build` does). */
  const buildBundle = (says: string) => {
    writeFileSync(
      bundle,
      `exports.main = async (argv) => { process.stdout.write("${says} " + argv.slice(2).join(" ")); };\n`,
    );
    const at = Date.now() / 1000 + build++;
    utimesSync(bundle, at, at);
  };
  const home = join(dir, "home");
  mkdirSync(home);
  const run = (env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(dir, "bin", "platform.js"), "list", "users"], {
      env: { PATH: process.env.PATH ?? "", HOME: home, ...env },
      encoding: "utf8",
    });
  const cacheDir = join(home, ".cache", "platform", "cli-code");
  const cached = () => readdirSync(cacheDir).map((name) => ({ name, ...statSync(join(cacheDir, name)) }));

  it("writes the cache on the first run, for the user alone, and reuses it after", () => {
    buildBundle("first");
    const first = run();
    assert.equal(first.stdout, "first list users", first.stderr);
    const [written, ...more] = cached();
    assert.ok(written, "a cache file");
    assert.deepEqual(more, []);
    assert.equal(written.mode & 0o777, 0o600);
    assert.equal(statSync(cacheDir).mode & 0o777, 0o700);
    assert.equal(run().stdout, "first list users");
    // V8 took it: not written again.
    assert.deepEqual(
      cached().map((f) => [f.name, f.ino, f.mtimeMs]),
      [[written.name, written.ino, written.mtimeMs]],
    );
  });

  it("a new build gets a new cache, which replaces the old one", () => {
    const [old] = cached();
    buildBundle("second");
    assert.equal(run().stdout, "second list users");
    const now = cached();
    assert.equal(now.length, 1);
    assert.notEqual(now[0]?.name, old?.name);
  });

  it("a cache V8 refuses (damaged) is only compiled around, and written anew", () => {
    const [file] = cached();
    assert.ok(file);
    writeFileSync(join(cacheDir, file.name), "not a code cache");
    assert.equal(run().stdout, "second list users");
    assert.ok(statSync(join(cacheDir, file.name)).size > "not a code cache".length, "rewritten");
  });

  it("XDG_CACHE_HOME holds it when set; a cache that cannot be written does not stop the command", () => {
    const xdg = join(dir, "xdg");
    assert.equal(run({ XDG_CACHE_HOME: xdg }).stdout, "second list users");
    assert.equal(readdirSync(join(xdg, "platform", "cli-code")).length, 1);
    // A cache directory under a plain file can be neither read nor made.
    const blocked = join(dir, "a-file");
    writeFileSync(blocked, "");
    const r = run({ XDG_CACHE_HOME: blocked });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, "second list users");
  });
});
