/**
 * How many CPUs a container's CPU limit allows (`--workers auto`): Node 20's
 * availableParallelism() counts the CPUs this process may run on (its affinity), not the cgroup
 * quota a container runtime sets (Kubernetes `resources.limits.cpu`, `docker run --cpus`), and
 * so many workers on few CPUs only compete for them. Reads the container's own cgroup (v2
 * `cpu.max`, else v1 `cpu.cfs_quota_us` and `cpu.cfs_period_us`), as the runtime mounts it.
 */
import { readFileSync } from "node:fs";

/** The whole CPUs a quota of `quota` µs per `period` µs allows (at least 1); undefined for no limit. */
export function cpusOfQuota(quota: string, period: string): number | undefined {
  const q = Number(quota);
  const p = Number(period);
  if (quota.trim() === "max" || !Number.isFinite(q) || q <= 0 || !Number.isFinite(p) || p <= 0) return undefined;
  return Math.max(1, Math.floor(q / p));
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return undefined;
  }
}

/** The CPU limit of this process's container, in whole CPUs; undefined when there is none (or none is readable). */
export function containerCpuLimit(root = "/sys/fs/cgroup"): number | undefined {
  const cpuMax = read(`${root}/cpu.max`);
  if (cpuMax !== undefined) {
    const [quota = "max", period = "100000"] = cpuMax.split(/\s+/);
    return cpusOfQuota(quota, period);
  }
  const quota = read(`${root}/cpu/cpu.cfs_quota_us`);
  const period = read(`${root}/cpu/cpu.cfs_period_us`);
  return quota === undefined || period === undefined ? undefined : cpusOfQuota(quota, period);
}
