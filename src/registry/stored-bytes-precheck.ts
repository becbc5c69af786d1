/**
 * Checks the stored bytes of a watch cache's versions in the background once the cache is filled
 * (at start, and for a new cache after one failed), so that the first LIST after a start finds
 * them checked rather than checking every version itself (docs/performance.md, "Checking stored
 * bytes"). The check is the fast paths' own (StoredVersions.sendableAsStored), with its verdict
 * kept where they look for it, the kind's store's StoredVersions: nothing is skipped or assumed, only done earlier. Correctness never
 * depends on it: a request that comes first checks what it needs itself, and this work then
 * passes over those versions (their verdicts are known).
 *
 * It runs in slices of about SLICE_MS (1 ms), one per turn of the event loop (setImmediate), so a request
 * that arrives meanwhile waits for at most one slice; versions replaced or deleted before their
 * turn are skipped (nothing will serve them), and a dropped or closed cache ends its work.
 */
import { performance } from "node:perf_hooks";
import type { KeyValue } from "../storage/interface.js";
import { resourcePrefix } from "./keys.js";
import { servesStoredBytes } from "./raw-read.js";
import type { ResourceType } from "./resource-type.js";
import type { StoredVersions } from "./stored-versions.js";

/** What the check needs of a kind's store: its kind, and where its verdicts are kept. */
export interface PrecheckedStore {
  readonly rt: ResourceType;
  readonly versions: StoredVersions;
}

/**
 * Time per slice: long enough that the turn between two slices costs little beside the slice,
 * short enough that a request arriving meanwhile hardly notices. The clock is read after every
 * version (a version's check costs far more than reading the clock), so a slice does not run over
 * on a busy machine.
 */
const SLICE_MS = 1;

interface Job {
  readonly store: PrecheckedStore;
  readonly items: readonly KeyValue[];
  readonly holds: (kv: KeyValue) => boolean;
  next: number;
}

export class StoredBytesPrecheck {
  /** The stores of the kinds whose stored bytes the fast paths send, by their cache partition (resourcePrefix). */
  private readonly stores = new Map<string, PrecheckedStore>();
  /** First in, first checked; one slice a turn for all of them, not one per job. */
  private readonly jobs: Job[] = [];
  private scheduled = false;
  private idleWaiters: Array<() => void> = [];

  constructor(stores: readonly PrecheckedStore[]) {
    for (const store of stores) if (servesStoredBytes(store.rt)) this.stores.set(resourcePrefix(store.rt), store);
  }

  /** The storage's fill listener (CachedStorage.whenFilled): queues the partition's versions when its kind is one shown as stored. */
  readonly filled = (partition: string, items: readonly KeyValue[], holds: (kv: KeyValue) => boolean): void => {
    const store = this.stores.get(partition);
    if (store === undefined || items.length === 0) return;
    this.jobs.push({ store, items, holds, next: 0 });
    this.schedule();
  };

  /** Resolves once every version queued so far has been checked or skipped (for tests and measurements). */
  idle(): Promise<void> {
    if (this.jobs.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Referenced: a closed cache's versions are no longer held, so its work ends within a slice or two.
    setImmediate(this.slice);
  }

  private readonly slice = (): void => {
    this.scheduled = false;
    const until = performance.now() + SLICE_MS;
    while (this.jobs.length > 0) {
      const job = this.jobs[0]!;
      if (job.next >= job.items.length) {
        this.jobs.shift();
        continue;
      }
      const kv = job.items[job.next++]!;
      if (job.holds(kv)) job.store.versions.sendableAsStored(job.store.rt, kv);
      if (performance.now() >= until) break;
    }
    if (this.jobs.length > 0) this.schedule();
    else this.releaseIdle();
  };

  private releaseIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
