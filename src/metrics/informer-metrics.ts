/**
 * The state of the server's shared informers (src/registry/informer.ts), which otherwise shows
 * only in the logs (src/app/informer-outage-report.ts): whether each resource's copy has a live
 * watch, and how its relists after a watch that ended with an error went.
 */
import { Counter, Gauge } from "prom-client";
import type { SharedInformers } from "../registry/shared-informers.js";
import { metricsRegistry } from "./metrics.js";

type InformerSource = Pick<SharedInformers, "resources">;

const sources = new Set<InformerSource>();

/** Adds a server's informers to the gauge; the returned function removes them (on close). */
export function registerInformerSource(informers: InformerSource): () => void {
  sources.add(informers);
  return () => sources.delete(informers);
}

/**
 * 1 while a resource's informer has a live watch, 0 while it is without one (its watch ended and
 * the relist is pending or failing: its copy stays at the revision it had). Only informers that
 * have listed once: one that was never started (the controllers' on a replica never elected) is
 * no outage. A resource watches only when every informer of it does: the minimum over the
 * servers of this process, and over the workers of `--workers N` (primary-scrape.ts).
 */
export const informerWatching = new Gauge({
  name: "platform_informer_watching",
  help: "1 while the server's shared informer of a resource has a live watch on the store, 0 while its watch ended and its relists are pending or failing (its copy stays at the revision it had).",
  labelNames: ["resource"],
  aggregator: "min",
  registers: [metricsRegistry],
  collect() {
    this.reset();
    const watching = new Map<string, number>();
    for (const source of sources) {
      for (const r of source.resources()) {
        if (!r.synced) continue;
        watching.set(r.resource, Math.min(watching.get(r.resource) ?? 1, r.watching ? 1 : 0));
      }
    }
    for (const [resource, value] of watching) this.set({ resource }, value);
  },
});

/** Relists after a watch that ended with an error: rare, so a plain prom-client counter. */
const informerRelists = new Counter({
  name: "platform_informer_relists_total",
  help: "Lists of the store a shared informer made again after its watch ended with an error, by resource and result (ok: it watches again; failed: retried with backoff).",
  labelNames: ["resource", "result"],
  registers: [metricsRegistry],
});

/** For the informers' `onRelistAttempt` option: counts one relist. */
export function countInformerRelist(resource: string, result: "ok" | "failed"): void {
  informerRelists.inc({ resource, result });
}
