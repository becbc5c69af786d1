#!/usr/bin/env node
// Summarises a .cpuprofile (node --cpu-prof; `BENCH_CPU_PROF=<dir> npm run bench` writes them):
//   node scripts/cpu-profile.js FILE [--from=S] [--to=S] [--top=N]   self and inclusive time by function
//   node scripts/cpu-profile.js FILE --timeline[=MS]                  how busy each slice of the run was
// --from/--to (seconds since the profile started) keep one phase of a run, found with --timeline.
// Shares are of samples; the sampler runs less often when the machine is busy, so absolute
// times are not reliable but the shares within a window are.
import { readFileSync } from "node:fs";

const [file, ...args] = process.argv.slice(2);
if (!file) {
  console.error("usage: cpu-profile.js FILE [--from=S] [--to=S] [--top=N] | --timeline[=MS]");
  process.exit(2);
}
const opt = (name, fallback) => {
  const a = args.find((x) => x === `--${name}` || x.startsWith(`--${name}=`));
  if (a === undefined) return fallback;
  return a.includes("=") ? Number(a.slice(a.indexOf("=") + 1)) : true;
};
const prof = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) =>
  `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber + 1}`;

// Sample times: startTime plus the running sum of timeDeltas (microseconds).
const times = [];
let t = prof.startTime;
for (const d of prof.timeDeltas) {
  t += d;
  times.push(t - prof.startTime);
}

const timeline = opt("timeline", undefined);
if (timeline !== undefined) {
  const slice = (timeline === true ? 1000 : timeline) * 1000;
  const slices = new Map();
  prof.samples.forEach((id, i) => {
    const k = Math.floor(times[i] / slice);
    const s = slices.get(k) ?? { n: 0, idle: 0 };
    s.n++;
    if (nodes.get(id).callFrame.functionName === "(idle)") s.idle++;
    slices.set(k, s);
  });
  for (const [k, s] of slices) {
    console.log(
      `${((k * slice) / 1e6).toFixed(2)}s  ${String(s.n).padStart(5)} samples  busy ${(100 - (100 * s.idle) / s.n).toFixed(0)}%`,
    );
  }
  process.exit(0);
}

const from = opt("from", 0) * 1e6;
const to = opt("to", Number.POSITIVE_INFINITY) * 1e6;
const top = opt("top", 40);
const self = new Map();
const inclusive = new Map();
let total = 0;
prof.samples.forEach((id, i) => {
  if (times[i] < from || times[i] >= to) return;
  total++;
  const leaf = label(nodes.get(id));
  self.set(leaf, (self.get(leaf) ?? 0) + 1);
  // Each function once per sample, however often it recurs on the stack.
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(nodes.get(cur));
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + 1);
  }
});
for (const [title, counts] of [
  ["self", self],
  ["inclusive", inclusive],
]) {
  console.log(`--- ${title} (${total} samples)`);
  for (const [l, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * n) / total).toFixed(1).padStart(5)}%  ${l}`);
  }
}
