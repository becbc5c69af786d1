import type { Registry } from "../registry/registry.js";
import type { InternalErrorLog } from "../server/request-guard.js";
import { PeriodicTask } from "../support/periodic-task.js";
import { recordActivity } from "../virtualclusters/sleep-state.js";

/**
 * Each virtual cluster instance's last request through this replica's gateway, written to its
 * status.lastActivity in batches (docs/virtual-clusters.md, "Sleep mode"): a request only notes
 * the time in memory; every `flushMs` one status write per instance used since the last flush
 * carries the latest. Sleep mode reads the recorded time, so an instance in use is never put to
 * sleep as long as its spec.sleepAfter is longer than `flushMs`.
 */
export class VirtualClusterActivity {
  private pending = new Map<string, { namespace: string; name: string; atMs: number }>();
  private readonly task: PeriodicTask;

  constructor(
    private readonly registry: Registry,
    flushMs: number,
    private readonly log: InternalErrorLog,
  ) {
    this.task = new PeriodicTask(() => this.write(), {
      intervalMs: flushMs,
      onError: (err) => log.error({ err }, "recording virtual cluster activity failed"),
    });
  }

  start(): void {
    this.task.start();
  }

  /** Stops the timer and writes what is noted (a replica going away keeps its users' activity). */
  async stop(): Promise<void> {
    await this.task.stop();
    await this.task.run().catch((err) => this.log.error({ err }, "recording virtual cluster activity failed"));
  }

  /** Notes a request to the instance now: memory only. */
  touch(namespace: string, name: string): void {
    this.pending.set(`${namespace}/${name}`, { namespace, name, atMs: Date.now() });
  }

  /** Writes what was noted since the last flush (also on demand: tests, stop). */
  flush(): Promise<void> {
    return this.task.run();
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    for (const { namespace, name, atMs } of batch.values()) {
      try {
        await recordActivity(this.registry, namespace, name, atMs);
      } catch (err) {
        // Kept for the next flush unless a later request noted a newer time meanwhile.
        const key = `${namespace}/${name}`;
        if (!this.pending.has(key)) this.pending.set(key, { namespace, name, atMs });
        this.log.error(
          { err, namespace, name },
          "recording virtual cluster activity failed; retried at the next flush",
        );
      }
    }
  }
}
