/**
 * `npm run test-cluster -- [--dir DIR] [--kubelet]`: the tests' real Kubernetes control plane
 * (kube-control-plane.ts) on its own, for a person to try the platform against a real Kubernetes
 * API; with --kubelet, the kubelet stand-in too (pods are reported running and ready). Builds the binaries first when they are not in the cache (tools/kube/build.sh), prints
 * one line `kubeconfig: <admin kubeconfig path>` on stdout once the cluster is ready (everything
 * else goes to stderr), and runs until SIGINT or SIGTERM, then stops everything it started.
 * (package.json runs it with `exec node …`: npm passes a SIGTERM to the shell it runs scripts
 * in, and without exec that shell would end and leave this process running.)
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { BUILD_SCRIPT } from "./kube/binaries.js";
import { KubeControlPlane } from "./kube-control-plane.js";

const USAGE = "usage: npm run test-cluster -- [--dir DIR] [--kubelet]";

function buildBinaries(): string {
  // build.sh prints the binaries' directory on stdout, its progress on stderr.
  const built = spawnSync(BUILD_SCRIPT, [], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  if (built.status !== 0) throw new Error(`${BUILD_SCRIPT} failed (${built.status ?? built.signal ?? built.error})`);
  return built.stdout.trim().split("\n").pop()!;
}

async function main(): Promise<void> {
  let dir: string | undefined;
  let kubelet = false;
  try {
    const { values } = parseArgs({ options: { dir: { type: "string" }, kubelet: { type: "boolean" } } });
    dir = values.dir;
    kubelet = values.kubelet === true;
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  // A signal during the start is acted on once the start is over (its processes are then known).
  let signalled = false;
  let plane: KubeControlPlane | undefined;
  const shutdown = (): void => {
    if (signalled) return;
    signalled = true;
    if (plane) void stopAndExit(plane);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);

  const binDir = buildBinaries();
  plane = await KubeControlPlane.start({ binDir, ...(dir !== undefined ? { dir: resolve(dir) } : {}) });
  if (signalled) return stopAndExit(plane);
  if (kubelet) {
    const standIn = await plane.startKubelet();
    console.error(`kubelet stand-in: pods are bound to node ${standIn.nodeName} and reported running and ready`);
  }
  console.error(`Kubernetes ${plane.version} at ${plane.url}; files and logs in ${plane.dir}; Ctrl-C stops it`);
  process.stdout.write(`kubeconfig: ${plane.adminKubeconfig}\n`);
}

async function stopAndExit(plane: KubeControlPlane): Promise<void> {
  await plane.stop();
  process.exit(0);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
