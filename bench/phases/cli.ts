/**
 * CLI start: how long `platform --version` and a real client command (`platform list teams`
 * against the bench server) take as processes, their CPU time and peak memory, beside `kubectl version
 * --client` in the same run (the baseline a kubectl user is used to) and bare `node -e 0` (the
 * floor of any node CLI); and the same request from both, `platform list users` beside `kubectl
 * get users` against the bench server, taken in turns. Medians of a few runs.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { f, type ServerBench } from "../harness.js";

const PLATFORM = fileURLToPath(new URL("../../bin/platform.js", import.meta.url));
/** GNU time reports a child's peak RSS; without it only durations are measured. */
const GNU_TIME = "/usr/bin/time";

interface Run {
  ms: number;
  /** Peak RSS in KiB, NaN when GNU time is not installed. */
  rssKb: number;
  /**
   * CPU time (user + system) in ms, NaN without GNU time: on a loaded machine the wall time
   * swings with the other processes, what the command itself computes much less.
   */
  cpuMs: number;
}

/**
 * After the other phases the bench server holds tens of thousands of Teams: a list's output is
 * far beyond spawnSync's default buffer, which would kill the child mid-write.
 */
const OUTPUT_LIMIT = 1 << 30;

function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv): Run {
  const withTime = existsSync(GNU_TIME);
  const options = { env, encoding: "utf8", maxBuffer: OUTPUT_LIMIT } as const;
  const t = performance.now();
  const r = withTime ? spawnSync(GNU_TIME, ["-f", "%M %U %S", cmd, ...args], options) : spawnSync(cmd, args, options);
  const ms = performance.now() - t;
  if (r.error) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr}`);
  if (!withTime) return { ms, rssKb: Number.NaN, cpuMs: Number.NaN };
  const [rssKb, user, system] = (r.stderr.trim().split("\n").pop() ?? "").split(" ").map(Number);
  return { ms, rssKb: rssKb ?? Number.NaN, cpuMs: 1000 * ((user ?? Number.NaN) + (system ?? Number.NaN)) };
}

function median(runs: Run[]): Run {
  const mid = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  return { ms: mid(runs.map((r) => r.ms)), rssKb: mid(runs.map((r) => r.rssKb)), cpuMs: mid(runs.map((r) => r.cpuMs)) };
}

function repeat(times: number, cmd: string, args: string[], env: NodeJS.ProcessEnv): Run {
  return median(Array.from({ length: times }, () => timed(cmd, args, env)));
}

const show = (r: Run) => `${f(r.ms, 0)} ms (CPU ${f(r.cpuMs, 0)} ms), ${f(r.rssKb / 1024)} MiB`;
/** Wall time over the baseline's, and CPU time over the baseline's. */
const ratio = (r: Run, base: Run) => `${f(r.ms / base.ms, 2)}x (CPU ${f(r.cpuMs / base.cpuMs, 2)}x)`;

export async function benchCli(b: ServerBench): Promise<void> {
  const times = b.N.dur > 1 ? 5 : 2;
  const config = join(b.dir, "cli-config.json");
  const ca = readFileSync(join(b.dataDir, "ca.crt"), "utf8");
  writeFileSync(
    config,
    JSON.stringify({
      login: { server: `https://127.0.0.1:${b.port}`, accessKey: b.key, certificateAuthorityData: ca },
    }),
    { mode: 0o600 },
  );
  const env = { ...process.env, PLATFORM_CONFIG: config, NO_COLOR: "1" };
  const kubectl = existsSync("/usr/bin/kubectl")
    ? repeat(times, "/usr/bin/kubectl", ["version", "--client"], env)
    : undefined;
  const baseline = kubectl ? `${show(kubectl)} (kubectl version --client)` : "kubectl not installed";
  // Node's own start is the floor under every figure of a node CLI.
  const bare = repeat(times, process.execPath, ["-e", "0"], env);
  b.row("CLI floor: node -e 0", show(bare), baseline, kubectl ? ratio(bare, kubectl) : "");
  const version = repeat(times, process.execPath, [PLATFORM, "--version"], env);
  b.row("CLI start: platform --version", show(version), baseline, kubectl ? ratio(version, kubectl) : "");
  const list = repeat(times, process.execPath, [PLATFORM, "list", "teams"], env);
  b.row("CLI request: platform list teams", show(list), baseline, kubectl ? ratio(list, kubectl) : "");
  if (existsSync("/usr/bin/kubectl")) benchSameRequest(b, times, env, ca);
}

/** `platform list users` beside `kubectl get users`: one request each, same server, same key. */
function benchSameRequest(b: ServerBench, times: number, env: NodeJS.ProcessEnv, ca: string): void {
  const kubeconfig = join(b.dir, "cli-kubeconfig.json");
  const entry = "bench";
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: entry,
          cluster: {
            server: `https://127.0.0.1:${b.port}/kubernetes/management`,
            "certificate-authority-data": Buffer.from(ca).toString("base64"),
          },
        },
      ],
      users: [{ name: entry, user: { token: b.key } }],
      contexts: [{ name: entry, context: { cluster: entry, user: entry } }],
      "current-context": entry,
    }),
    { mode: 0o600 },
  );
  const kubectlArgs = ["--kubeconfig", kubeconfig, "--cache-dir", join(b.dir, "kube-cache"), "get", "users"];
  const platformArgs = [PLATFORM, "list", "users"];
  // A kubectl user has the discovery cache already, a platform user the CLI's code cache: both
  // filled before measuring.
  timed("/usr/bin/kubectl", kubectlArgs, env);
  timed(process.execPath, platformArgs, env);
  // The two taken in turns, many times: GNU time counts CPU in steps of 10 ms, and the machine's
  // moments then fall on both alike.
  const turns = times * 4 + 1;
  const kubectlRuns: Run[] = [];
  const platformRuns: Run[] = [];
  for (let i = 0; i < turns; i++) {
    kubectlRuns.push(timed("/usr/bin/kubectl", kubectlArgs, env));
    platformRuns.push(timed(process.execPath, platformArgs, env));
  }
  const kubectl = median(kubectlRuns);
  const users = median(platformRuns);
  b.row(
    `CLI request: platform list users (median of ${turns}, in turns)`,
    show(users),
    `${show(kubectl)} (kubectl get users)`,
    ratio(users, kubectl),
  );
}
