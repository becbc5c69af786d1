#!/usr/bin/env node
// Runs every compiled test file (dist/**/*.test.js) with Node's own test runner.
// Node 20 takes no glob, so the files are listed here. Test files are independent
// (each starts its own servers on free ports), so they run several at a time.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const filter = process.argv.slice(2);
const files = readdirSync("dist", { recursive: true })
  .map(String)
  .filter((f) => f.endsWith(".test.js"))
  .filter((f) => filter.length === 0 || filter.some((part) => f.includes(part)))
  .map((f) => join("dist", f))
  .sort();
if (files.length === 0) {
  console.error("no test files found under dist/ (did the build run?)");
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? "4";
const result = spawnSync(
  process.execPath,
  ["--enable-source-maps", "--test", `--test-concurrency=${concurrency}`, "--test-reporter=spec", ...files],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
