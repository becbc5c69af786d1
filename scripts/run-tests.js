#!/usr/bin/env node
// Runs every compiled test file with Node's own test runner: the product's (dist/**/*.test.js) and
// the bench's (dist-bench/**/*.test.js; the bench is built apart from the product, bench/).
// Node 20 takes no glob, so the files are listed here. Test files are independent
// (each starts its own servers on free ports), so they run several at a time, the longest
// first (test-order.js). `node --test` sorts the files it is given by name, so the runner's
// own API runs them, in this order.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { run } from "node:test";
import { spec } from "node:test/reporters";
import { fileURLToPath } from "node:url";
import { longestFirst, saveDurations } from "./test-order.js";

// The test files' processes take this process's flags: stack traces name the TypeScript lines.
if (!process.execArgv.includes("--enable-source-maps")) {
  const self = fileURLToPath(import.meta.url);
  const result = spawnSync(process.execPath, ["--enable-source-maps", self, ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  process.exit(result.status ?? 1);
}

const OUTPUT_DIRS = ["dist", "dist-bench"];
const filter = process.argv.slice(2);
const files = OUTPUT_DIRS.filter((dir) => existsSync(dir))
  .flatMap((dir) =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".test.js"))
      .map((f) => join(dir, f)),
  )
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)));
if (files.length === 0) {
  console.error(`no test files found under ${OUTPUT_DIRS.join(" or ")} (did the build run?)`);
  process.exit(1);
}
// The test servers of the whole run share one set of TLS files, made by the first of them
// (src/testing/tls-seed.ts reads this variable): making them per server was CPU for nothing.
const tlsDir = mkdtempSync(join(tmpdir(), "platform-test-tls-"));
process.env.PLATFORM_TEST_TLS_DIR = tlsDir;
process.on("exit", () => rmSync(tlsDir, { recursive: true, force: true }));
const concurrency = Number(process.env.TEST_CONCURRENCY ?? "4");
const durations = {};
const stream = run({ files: longestFirst(files), concurrency });
// As `node --test` counts them: a failed test marked todo fails nothing.
stream.on("test:fail", ({ todo }) => {
  if (todo === undefined || todo === false) process.exitCode = 1;
});
// A file's top-level tests run one after another: their durations add up to the file's (all but
// its process's start). With source maps, a test names the source file its compiled one came from.
const compiledPath = (file) =>
  relative(process.cwd(), file)
    .replace(/^src\//, "dist/")
    .replace(/^bench\//, "dist-bench/")
    .replace(/\.ts$/, ".js");
for (const event of ["test:pass", "test:fail"])
  stream.on(event, ({ nesting, file, details }) => {
    if (nesting !== 0 || file === undefined) return;
    const path = compiledPath(file);
    durations[path] = (durations[path] ?? 0) + details.duration_ms;
  });
process.on("exit", () => saveDurations(durations));
stream.compose(spec).pipe(process.stdout);
