import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { PLATFORM_BIN } from "../testing/cli-run.js";

/**
 * bin/platform.js runs the bundled CLI unless the compiled modules are newer than it (tsc ran
 * alone after the last build): a stale bundle must never hide a change. The executable is
 * copied beside a dist/cli/ of two stand-ins that each say which one ran.
 */
describe("bin/platform.js", () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-bin-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const cli = join(dir, "dist", "cli");
  mkdirSync(cli, { recursive: true });
  mkdirSync(join(dir, "bin"));
  // bin/platform.js is CommonJS by its own package.json, whatever the package's type.
  for (const file of ["platform.js", "code-cache.js", "package.json"]) {
    copyFileSync(join(dirname(PLATFORM_BIN), file), join(dir, "bin", file));
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  /** The compiled modules are ES modules, the bundle CommonJS. */
  const standIn = (file: string, name: string, writtenAt: number) => {
    const main = `function main(argv) { process.stdout.write("${name} " + argv.slice(2).join(" ")); }`;
    writeFileSync(join(cli, file), file.endsWith(".cjs") ? `exports.main = ${main};\n` : `export ${main}\n`);
    utimesSync(join(cli, file), writtenAt, writtenAt);
  };
  const run = () =>
    spawnSync(process.execPath, [join(dir, "bin", "platform.js"), "list", "users"], {
      env: { PATH: process.env.PATH ?? "", HOME: dir },
      encoding: "utf8",
    });
  const built = Date.now() / 1000 - 60;

  it("runs the bundle when it was built after the compiled modules", () => {
    standIn("main.js", "modules", built);
    standIn("platform-cli.cjs", "bundle", built + 1);
    assert.equal(run().stdout, "bundle list users");
  });

  it("runs the compiled modules when they are newer than the bundle", () => {
    standIn("main.js", "modules", built + 2);
    assert.equal(run().stdout, "modules list users");
  });

  it("runs the compiled modules when there is no bundle", () => {
    rmSync(join(cli, "platform-cli.cjs"));
    assert.equal(run().stdout, "modules list users");
  });
});
