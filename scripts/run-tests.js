#!/usr/bin/env node
// Runs every compiled test file with Node's own test runner: the product's (dist/**/*.test.js) and
// the bench's (dist-bench/**/*.test.js; the bench is built apart from the product, bench/).
// Node 20 takes no glob, so the files are listed here. Test files are independent
// (each starts its own servers on free ports), so they run several at a time.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const OUTPUT_DIRS = ["dist", "dist-bench"];
const filter = process.argv.slice(2);
const files = OUTPUT_DIRS.filter((dir) => existsSync(dir))
  .flatMap((dir) =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".test.js"))
      .map((f) => join(dir, f)),
  )
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .sort();
if (files.length === 0) {
  console.error(`no test files found under ${OUTPUT_DIRS.join(" or ")} (did the build run?)`);
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? "4";
const result = spawnSync(
  process.execPath,
  ["--enable-source-maps", "--test", `--test-concurrency=${concurrency}`, "--test-reporter=spec", ...files],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
