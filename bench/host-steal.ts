/**
 * The share of this virtual machine's CPU time that its host gave to others ("steal", from
 * /proc/stat) between two reads. On a shared host a tail the processes themselves cannot explain
 * (no event-loop block, no slow disk) often shows up here instead.
 */
import { readFileSync } from "node:fs";

export interface CpuTimes {
  steal: number;
  total: number;
}

/** The machine's CPU times so far (jiffies), or undefined where /proc/stat cannot be read. */
export function cpuTimes(): CpuTimes | undefined {
  try {
    const line = readFileSync("/proc/stat", "latin1").split("\n", 1)[0]!;
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { steal: fields[7] ?? 0, total };
  } catch {
    return undefined;
  }
}

/** Steal as a share (0–1) of the CPU time between `before` and `after`; NaN when unknown. */
export function stealShare(before: CpuTimes | undefined, after: CpuTimes | undefined): number {
  if (!before || !after || after.total <= before.total) return Number.NaN;
  return (after.steal - before.steal) / (after.total - before.total);
}
