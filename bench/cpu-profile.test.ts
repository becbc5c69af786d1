import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { type CpuProfile, summarise, timeline } from "./cpu-profile.js";

const TOOL = fileURLToPath(new URL("./cpu-profile.js", import.meta.url));

const frame = (functionName: string, lineNumber = 0) => ({ functionName, url: "file:///x/app.js", lineNumber });

/** (root) → outer → inner → outer (recursion), and (root) → (idle); one sample every half second. */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame("(root)"), children: [2, 5] },
    { id: 2, callFrame: frame("outer", 9), children: [3] },
    { id: 3, callFrame: frame("inner", 19), children: [4] },
    { id: 4, callFrame: frame("outer", 9) },
    { id: 5, callFrame: frame("(idle)") },
  ],
  startTime: 1_000_000,
  samples: [3, 4, 4, 5],
  timeDeltas: [0, 500_000, 500_000, 500_000],
};

describe("bench/cpu-profile", () => {
  it("gives each function's self and inclusive share, a recursive one counted once per sample", () => {
    const s = summarise(PROFILE);
    assert.equal(s.samples, 4);
    assert.deepEqual(s.self, [
      { label: "outer app.js:10", percent: 50 },
      { label: "inner app.js:20", percent: 25 },
      { label: "(idle) app.js:1", percent: 25 },
    ]);
    assert.deepEqual(
      s.inclusive.find((f) => f.label === "outer app.js:10"),
      { label: "outer app.js:10", percent: 75 },
    );
    assert.deepEqual(
      s.inclusive.find((f) => f.label === "(root) app.js:1"),
      { label: "(root) app.js:1", percent: 100 },
    );
  });

  it("keeps only the samples of the --from/--to window", () => {
    const s = summarise(PROFILE, 0.5, 1.5);
    assert.equal(s.samples, 2);
    assert.deepEqual(s.self, [{ label: "outer app.js:10", percent: 100 }]);
  });

  it("says how busy each slice of the run was", () => {
    assert.deepEqual(timeline(PROFILE, 1000), [
      { startSec: 0, samples: 2, busyPercent: 100 },
      { startSec: 1, samples: 2, busyPercent: 50 },
    ]);
  });

  it("reads a profile node wrote and prints both summaries and the timeline", () => {
    const dir = mkdtempSync(join(tmpdir(), "cpu-profile-test-"));
    try {
      const work = "function spinForProfile(n) { let x = 0; for (let i = 0; i < n; i++) x += i % 7; return x; }";
      const node = spawnSync(
        process.execPath,
        ["--cpu-prof", `--cpu-prof-dir=${dir}`, "--cpu-prof-interval=100", "-e", `${work} spinForProfile(3e7);`],
        { encoding: "utf8" },
      );
      assert.equal(node.status, 0, node.stderr);
      const [file] = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
      assert.ok(file, "node wrote no profile");
      const summary = spawnSync(process.execPath, [TOOL, join(dir, file)], { encoding: "utf8" });
      assert.equal(summary.status, 0, summary.stderr);
      assert.match(summary.stdout, /^--- self \(\d+ samples\)$/m);
      assert.match(summary.stdout, /^--- inclusive \(\d+ samples\)$/m);
      assert.match(summary.stdout, /^\s*\d+\.\d% {2}spinForProfile /m);
      const slices = spawnSync(process.execPath, [TOOL, join(dir, file), "--timeline=100"], { encoding: "utf8" });
      assert.equal(slices.status, 0, slices.stderr);
      assert.match(slices.stdout, /^0\.00s\s+\d+ samples {2}busy \d+%$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses to run without a file", () => {
    const r = spawnSync(process.execPath, [TOOL], { encoding: "utf8" });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /usage: cpu-profile\.js FILE/);
  });
});
