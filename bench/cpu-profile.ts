/**
 * Summarises a .cpuprofile (`node --cpu-prof`; `BENCH_CPU_PROF=<dir> npm run bench` writes one per
 * server child and watch client):
 *
 *   node dist-bench/cpu-profile.js FILE [--from=S] [--to=S] [--top=N]   self and inclusive share by function
 *   node dist-bench/cpu-profile.js FILE --timeline[=MS]                  how busy each slice of the run was
 *
 * --from/--to (seconds since the profile started) keep one phase of a run, found with --timeline.
 * Shares are of samples: the sampler runs less often when the machine is busy, so absolute times
 * are not reliable, but the shares within a window are.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The parts of V8's .cpuprofile format read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  startTime: number;
  /** The node on top of the stack at each sample. */
  samples: number[];
  /** Microseconds since the previous sample (the first: since startTime). */
  timeDeltas: number[];
}

export interface Slice {
  /** Seconds since the profile started. */
  startSec: number;
  samples: number;
  /** Share of the slice's samples not in `(idle)`, in percent. */
  busyPercent: number;
}

export interface FunctionShare {
  /** `name file:line`. */
  label: string;
  percent: number;
}

export interface Summary {
  samples: number;
  /** Where the samples were: the function on top of the stack. */
  self: FunctionShare[];
  /** Samples with the function anywhere on the stack (once per sample, however often it recurs). */
  inclusive: FunctionShare[];
}

/** Microseconds from the profile's start to each sample. */
function sampleTimes(profile: CpuProfile): number[] {
  const times: number[] = [];
  let t = 0;
  for (const delta of profile.timeDeltas) {
    t += delta;
    times.push(t);
  }
  return times;
}

function labelOf(frame: CpuProfile["nodes"][number]["callFrame"]): string {
  return `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop()}:${frame.lineNumber + 1}`;
}

/** How busy each slice of `sliceMs` was, in the order of time. */
export function timeline(profile: CpuProfile, sliceMs = 1000): Slice[] {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  const times = sampleTimes(profile);
  const slices = new Map<number, { samples: number; idle: number }>();
  profile.samples.forEach((id, i) => {
    const k = Math.floor(times[i]! / (sliceMs * 1000));
    const s = slices.get(k) ?? { samples: 0, idle: 0 };
    s.samples++;
    if (idle.has(id)) s.idle++;
    slices.set(k, s);
  });
  return [...slices]
    .sort((a, b) => a[0] - b[0])
    .map(([k, s]) => ({
      startSec: (k * sliceMs) / 1000,
      samples: s.samples,
      busyPercent: 100 - (100 * s.idle) / s.samples,
    }));
}

/** Self and inclusive shares by function of the samples from `fromSec` (included) to `toSec`. */
export function summarise(profile: CpuProfile, fromSec = 0, toSec = Number.POSITIVE_INFINITY, top = 40): Summary {
  const labels = new Map(profile.nodes.map((n) => [n.id, labelOf(n.callFrame)]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const times = sampleTimes(profile);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let samples = 0;
  profile.samples.forEach((id, i) => {
    const t = times[i]!;
    if (t < fromSec * 1e6 || t >= toSec * 1e6) return;
    samples++;
    const leaf = labels.get(id)!;
    self.set(leaf, (self.get(leaf) ?? 0) + 1);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const label = labels.get(cur)!;
      if (seen.has(label)) continue;
      seen.add(label);
      inclusive.set(label, (inclusive.get(label) ?? 0) + 1);
    }
  });
  const shares = (counts: Map<string, number>): FunctionShare[] =>
    [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([label, n]) => ({ label, percent: (100 * n) / samples }));
  return { samples, self: shares(self), inclusive: shares(inclusive) };
}

function main(argv: string[]): void {
  const [file, ...args] = argv;
  if (!file) {
    console.error("usage: cpu-profile.js FILE [--from=S] [--to=S] [--top=N] | --timeline[=MS]");
    process.exit(2);
  }
  const option = (name: string): string | undefined => {
    const arg = args.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
    if (arg === undefined) return undefined;
    return arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : "";
  };
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const slice = option("timeline");
  if (slice !== undefined) {
    for (const s of timeline(profile, slice === "" ? 1000 : Number(slice))) {
      console.log(
        `${s.startSec.toFixed(2)}s  ${String(s.samples).padStart(5)} samples  busy ${s.busyPercent.toFixed(0)}%`,
      );
    }
    return;
  }
  const summary = summarise(
    profile,
    Number(option("from") ?? 0),
    Number(option("to") ?? Number.POSITIVE_INFINITY),
    Number(option("top") ?? 40),
  );
  for (const [title, shares] of [
    ["self", summary.self],
    ["inclusive", summary.inclusive],
  ] as const) {
    console.log(`--- ${title} (${summary.samples} samples)`);
    for (const s of shares) console.log(`${s.percent.toFixed(1).padStart(5)}%  ${s.label}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
