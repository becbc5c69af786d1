/**
 * One etcd watch per storage (per server replica), fanned out locally to every Storage.watch.
 *
 * Each resource's watch cache and each controller's informer watch the store; with a gRPC
 * stream each, every write crossed the network once per watcher (about 30 times per write per
 * replica). The hub opens a single stream over the whole key space, keeps a ring of its recent
 * events, and hands each watch the events under its prefix. A watch that starts from a revision
 * the ring still covers is replayed from it and then follows live; one a little older re-opens
 * the shared stream from there (each watch drops the events it already has); one from much
 * older (rare: a client resuming an old resourceVersion the watch cache no longer holds either)
 * gets a stream of its own, as before.
 *
 * Progress is passed on with every response: the stream covers every key, so having delivered
 * revision R means every watch has everything under its prefix up to R.
 */

import type { StorageError } from "../errors.js";
import { EventRing } from "../event-ring.js";
import type { WatchCallbacks, WatchEvent, Watcher } from "../interface.js";
import { QueuedWatcher } from "../queued-watcher.js";
import type { EtcdClient } from "./client/index.js";
import { EtcdWatchStream } from "./watch-stream.js";

/** Recent events kept for watches that start a little behind the hub (default). */
const DEFAULT_RING = 4096;

export class EtcdWatchHub {
  private stream: EtcdWatchStream | undefined;
  private readonly subscribers = new Set<QueuedWatcher>();
  private readonly dedicated = new Set<QueuedWatcher>();
  /** Recent events of the shared stream (its floor is valid while the stream is open). */
  private readonly ring: EventRing;
  /** gRPC watch streams opened so far, shared and dedicated (tests and the bench count them). */
  streamsOpened = 0;

  constructor(
    private readonly kv: EtcdClient,
    ringSize = DEFAULT_RING,
    /** Where the streams' warnings go (the server's log; see EtcdStorageOptions.onWarning). */
    private readonly warn: (message: string) => void = console.warn,
  ) {
    this.ring = new EventRing(ringSize);
  }

  /** The revision the shared stream has delivered up to (0 before it opened). */
  get revision(): number {
    return this.stream?.lastRevision ?? 0;
  }

  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): Watcher {
    if (this.stream === undefined) this.open(afterRevision);
    else if (afterRevision < this.ring.floor) {
      // Caches and informers start together, each from its own list's revision, so the first
      // one to open the stream may be a little ahead of the others: re-open the shared stream
      // from the earlier revision (every watch drops what it already has). Far behind, a
      // stream of its own spares everyone else the replay.
      if (this.revision - afterRevision > this.ring.size) return this.watchAlone(prefix, afterRevision, callbacks);
      this.stream.close();
      this.open(afterRevision);
    }
    const watcher = new QueuedWatcher(prefix, afterRevision, callbacks, (w) => this.subscribers.delete(w));
    const replay = this.ring.after(afterRevision);
    if (replay.length > 0) watcher.offer(replay);
    if (this.revision > afterRevision) watcher.progress(this.revision);
    this.subscribers.add(watcher);
    return watcher;
  }

  /** A watch from before the ring: its own stream from its own revision. */
  private watchAlone(prefix: string, afterRevision: number, callbacks: WatchCallbacks): Watcher {
    const stream = new EtcdWatchStream(this.kv, prefix, afterRevision, {
      onResponse: (events, revision) => {
        if (events.length > 0) watcher.offerNow(events);
        watcher.progress(revision);
      },
      onCompacted: (err) => watcher.fail(err),
      onWarning: this.warn,
    });
    const watcher = new QueuedWatcher(prefix, afterRevision, callbacks, (w) => {
      this.dedicated.delete(w);
      stream.close();
    });
    this.dedicated.add(watcher);
    this.streamsOpened++;
    stream.start();
    return watcher;
  }

  private open(afterRevision: number): void {
    this.ring.reset(afterRevision);
    this.stream = new EtcdWatchStream(this.kv, "", afterRevision, {
      onResponse: (events, revision) => this.fanOut(events, revision),
      onCompacted: (err) => this.reset(err),
      onWarning: this.warn,
    });
    this.streamsOpened++;
    this.stream.start();
  }

  private fanOut(events: readonly WatchEvent[], revision: number): void {
    for (const ev of events) this.ring.push(ev);
    for (const w of this.subscribers) {
      if (events.length > 0) w.offerNow(events);
      w.progressNow(revision);
    }
  }

  /** The shared stream cannot resume (compacted): every watch on it ends with that error. */
  private reset(err: StorageError): void {
    this.stream = undefined;
    for (const w of [...this.subscribers]) w.fail(err);
    this.subscribers.clear();
  }

  /** Breaks the shared gRPC stream as a network failure would (tests): it resumes by itself. */
  breakStream(): void {
    this.stream?.breakStream();
  }

  /** Ends every watch without an error. */
  close(): void {
    this.stream?.close();
    this.stream = undefined;
    for (const w of [...this.subscribers, ...this.dedicated]) w.end();
  }
}
