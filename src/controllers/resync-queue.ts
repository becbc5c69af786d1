import type { Informer } from "../registry/informer.js";
import { type ControllerLog, failureLogging } from "./controller-log.js";
import { WorkQueue } from "./work-queue.js";

/**
 * The start and stop wiring of every controller that resyncs (those that keep connected clusters
 * in step, the cluster health check, the project secrets' copies): a work queue of string keys
 * (with its backoff of failed keys), the informer handlers that add keys to it, every key queued
 * once the informers have synced and again every `resyncMs` (which repairs what was changed by
 * hand on a cluster), and on stop the handlers removed and the queue drained. The one way to do
 * it: resync-queue.test.ts checks that no other file arms a resync of its own.
 */
export interface ResyncWiring {
  /** The controller's name in failure logs. */
  controller: string;
  concurrency: number;
  resyncMs: number;
  /** Longest wait before a failed key is tried again (the queue's default, a minute, when absent). */
  retryMaxMs?: number;
  log: ControllerLog;
  process(key: string): Promise<void>;
  /** The informers the controller reads: waited for before the first pass. */
  informers: readonly Informer[];
  /** Adds the controller's handlers; returns their removals. */
  subscribe(queue: WorkQueue<string>): Array<() => void>;
  /** Every key, for the first pass and each resync. */
  keys(): Iterable<string>;
}

export class ResyncQueue {
  private queue?: WorkQueue<string>;
  private timer?: NodeJS.Timeout;
  private unsubscribe: Array<() => void> = [];
  private stopped = true;

  constructor(private readonly wiring: ResyncWiring) {}

  /** False once stop() began: a pass in flight then writes nothing more. */
  get running(): boolean {
    return !this.stopped;
  }

  /** Queues `key` again once `ms` have passed (something on the cluster is still going). */
  addAfter(key: string, ms: number): void {
    this.queue?.addAfter(key, ms);
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    const { wiring } = this;
    const queue = new WorkQueue<string>({
      process: (key) => wiring.process(key),
      concurrency: wiring.concurrency,
      ...(wiring.retryMaxMs !== undefined ? { maxDelayMs: wiring.retryMaxMs } : {}),
      ...failureLogging(wiring.log, wiring.controller),
    });
    this.queue = queue;
    this.unsubscribe.push(...wiring.subscribe(queue));
    await Promise.all(wiring.informers.map((i) => i.synced()));
    if (this.stopped) return; // stopped while waiting
    const syncAll = () => {
      for (const key of wiring.keys()) queue.add(key);
    };
    syncAll();
    this.timer = setInterval(syncAll, wiring.resyncMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    for (const u of this.unsubscribe.splice(0)) u();
    await this.queue?.shutdown();
  }
}
