/**
 * `/metrics` of `platform start --workers N` shows the whole server, whichever worker the scrape
 * reaches: that worker asks the primary (over node:cluster's IPC channel), the primary asks every
 * serving worker for its registry as JSON and merges them (primary-scrape.ts), and the text comes
 * back here. A single server process reads its own registry.
 */
import type { MetricObjectWithValues, MetricValue } from "prom-client";
import { metricsRegistry } from "./metrics.js";

/** One worker's registry, as prom-client's getMetricsAsJSON() gives it. */
export type MetricsSnapshot = MetricObjectWithValues<MetricValue<string>>[];

/** Worker → primary: "merge every worker's metrics for my scrape". */
export interface ScrapeRequest {
  type: "platform-metrics-scrape";
  id: number;
}
/** Primary → worker: the merged text, or why there is none. */
export interface ScrapeAnswer {
  type: "platform-metrics-scraped";
  id: number;
  text?: string;
  error?: string;
}
/** What a worker sends the primary about metrics. */
export type WorkerMessage = ScrapeRequest | CollectAnswer;

/** Primary → worker: "send me your registry". */
export interface CollectRequest {
  type: "platform-metrics-collect";
  id: number;
}
/** Worker → primary: this worker's registry, or why it has none. */
export interface CollectAnswer {
  type: "platform-metrics-snapshot";
  id: number;
  metrics?: MetricsSnapshot;
  error?: string;
}

/** How long a worker waits for the primary's merged text (the primary waits 5 s per worker). */
const SCRAPE_TIMEOUT_MS = 15_000;

let viaPrimary = false;
let lastId = 0;
const waiting = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();

/**
 * In a worker, before it reports that it serves: answers the primary's collect requests and
 * makes scrapeMetrics() ask the primary for the whole server's text.
 */
export function serveMetricsToPrimary(): void {
  if (viaPrimary) return;
  viaPrimary = true;
  process.on("message", (message: CollectRequest | ScrapeAnswer) => {
    if (message?.type === "platform-metrics-collect") sendSnapshot(message.id);
    else if (message?.type === "platform-metrics-scraped") {
      const w = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.text !== undefined) w?.resolve(message.text);
      else w?.reject(new Error(message.error ?? "no metrics"));
    }
  });
}

function sendSnapshot(id: number): void {
  metricsRegistry.getMetricsAsJSON().then(
    (metrics) => process.send?.({ type: "platform-metrics-snapshot", id, metrics } satisfies CollectAnswer),
    (err: unknown) =>
      process.send?.({ type: "platform-metrics-snapshot", id, error: String(err) } satisfies CollectAnswer),
  );
}

/** The text a scrape gets: this process's registry, or in a worker every worker's, merged by the primary. */
export function scrapeMetrics(): Promise<string> {
  if (!viaPrimary) return metricsRegistry.metrics();
  const id = ++lastId;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error(`the primary did not merge the workers' metrics within ${SCRAPE_TIMEOUT_MS / 1000} s`));
    }, SCRAPE_TIMEOUT_MS);
    const done = () => clearTimeout(timer);
    waiting.set(id, {
      resolve: (text) => {
        done();
        resolve(text);
      },
      reject: (err) => {
        done();
        reject(err);
      },
    });
    process.send?.({ type: "platform-metrics-scrape", id } satisfies ScrapeRequest);
  });
}
