/**
 * The primary's half of `/metrics` under `platform start --workers N` (worker-scrape.ts is the
 * workers' half): asks every serving worker for its registry and merges them with prom-client's
 * AggregatorRegistry.aggregate, each metric by its own `aggregator` (counters and histograms add
 * up; gauges read from the shared store take the max; metrics.ts and server-gauges.ts set them).
 *
 * Counters must not go down when a worker dies and a new one starts from zero (Prometheus would
 * read a reset and count the whole total again): the counters and histograms a worker had at its
 * last scrape stay in the totals after it exits.
 */
import type { Worker } from "node:cluster";
import { type Aggregator, AggregatorRegistry } from "prom-client";
import type { CollectAnswer, CollectRequest, MetricsSnapshot, ScrapeAnswer, WorkerMessage } from "./worker-scrape.js";

/** prom-client's default metrics whose sum over the workers means nothing (ours set their own). */
const DEFAULT_METRIC_AGGREGATORS: Record<string, Aggregator> = {
  // Each worker's own limit.
  process_max_fds: "max",
  // prom-client omits it when merging; the newest worker's start shows that one restarted.
  process_start_time_seconds: "max",
};

/** How long the primary waits for one worker's registry before the scrape fails. */
const COLLECT_TIMEOUT_MS = 5000;

/** A worker that serves, with its number (1…N) for error messages. */
export interface ServingWorker {
  worker: Worker;
  number: number;
}

interface Waiting {
  worker: Worker;
  settle(answer: CollectAnswer | Error): void;
}

export class WorkerMetrics {
  private lastId = 0;
  private readonly waiting = new Map<number, Waiting>();
  /** Each live worker's registry at its last successful collect. */
  private readonly last = new Map<Worker, MetricsSnapshot>();
  /** The counters and histograms of workers that exited, as last collected. */
  private retired: MetricsSnapshot[] = [];
  /** Merges run one at a time: each may fold `retired` into one snapshot. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly serving: () => ServingWorker[]) {}

  /** Handles a worker's message when it is about metrics; true when it was. */
  handle(worker: Worker, message: WorkerMessage | undefined): boolean {
    if (message?.type === "platform-metrics-snapshot") {
      const w = this.waiting.get(message.id);
      if (w?.worker === worker) w.settle(message);
      return true;
    }
    if (message?.type !== "platform-metrics-scrape") return false;
    const { id } = message;
    const answer = (a: Omit<ScrapeAnswer, "type" | "id">) => {
      if (worker.isConnected()) worker.send({ type: "platform-metrics-scraped", id, ...a } satisfies ScrapeAnswer);
    };
    this.merged().then(
      (text) => answer({ text }),
      (err: unknown) => answer({ error: err instanceof Error ? err.message : String(err) }),
    );
    return true;
  }

  /** A worker exited: what it had counted stays in the totals. */
  exited(worker: Worker): void {
    for (const w of this.waiting.values()) {
      if (w.worker === worker) w.settle(new Error(`worker (pid ${worker.process.pid}) exited during the scrape`));
    }
    const snapshot = this.last.get(worker);
    this.last.delete(worker);
    if (snapshot) this.retired.push(snapshot.filter((m) => isCumulative(m.type)));
  }

  /** Every serving worker's metrics merged, in the Prometheus text format. */
  merged(): Promise<string> {
    const run = this.queue.then(() => this.mergeNow());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async mergeNow(): Promise<string> {
    const serving = this.serving();
    await Promise.all(serving.map((s) => this.collect(s)));
    // A worker that exited meanwhile is in `retired` already.
    const snapshots = serving.map((s) => this.last.get(s.worker)).filter((m): m is MetricsSnapshot => m !== undefined);
    if (this.retired.length > 1) this.retired = [await AggregatorRegistry.aggregate(this.retired).getMetricsAsJSON()];
    for (const snapshot of snapshots) {
      for (const m of snapshot) m.aggregator = DEFAULT_METRIC_AGGREGATORS[m.name] ?? m.aggregator;
    }
    return AggregatorRegistry.aggregate([...snapshots, ...this.retired]).metrics();
  }

  private collect({ worker, number }: ServingWorker): Promise<MetricsSnapshot> {
    const id = ++this.lastId;
    return new Promise<MetricsSnapshot>((resolve, reject) => {
      const timer = setTimeout(() => {
        settle(new Error(`worker ${number} (pid ${worker.process.pid}) did not send its metrics within 5 s`));
      }, COLLECT_TIMEOUT_MS);
      const settle = (answer: CollectAnswer | Error) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        if (answer instanceof Error) reject(answer);
        else if (answer.metrics) {
          this.last.set(worker, answer.metrics);
          resolve(answer.metrics);
        } else reject(new Error(`worker ${number} (pid ${worker.process.pid}): ${answer.error ?? "no metrics"}`));
      };
      this.waiting.set(id, { worker, settle });
      worker.send({ type: "platform-metrics-collect", id } satisfies CollectRequest);
    });
  }
}

/** Counters and histograms only grow; a gauge of a gone worker means nothing. */
function isCumulative(type: unknown): boolean {
  return String(type) === "counter" || String(type) === "histogram";
}
