/**
 * What the etcd watch stream's unit tests drive it with in place of the etcd client: streams that
 * record what was written on them, and a watch that records what it delivered.
 */
import assert from "node:assert/strict";
import type { BidiHandlers } from "../storage/etcd/client/index.js";
import { EtcdWatchStream, type WatchStreamKv } from "../storage/etcd/watch-stream.js";
import type { WatchEvent } from "../storage/interface.js";

/** A stream as the client hands it over: what was written on it, and whether it was cancelled. */
export class RecordedStream {
  readonly written: Buffer[] = [];
  cancels = 0;
  constructor(readonly handlers: BidiHandlers) {}
  write(message: Uint8Array): void {
    this.written.push(Buffer.from(message));
  }
  cancel(): void {
    this.cancels++;
  }
}

/** Lets the promise callbacks run (setImmediate is not among the timers tests mock). */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A watch of "/r/" from revision 10 on `kv`, and what it delivered: each response's keys and
 * revision, in order. Compaction fails the test.
 */
export function watchDelivering(kv: WatchStreamKv): { watch: EtcdWatchStream; delivered: Array<[string[], number]> } {
  const delivered: Array<[string[], number]> = [];
  const watch = new EtcdWatchStream(kv, "/r/", 10, {
    onResponse: (events: WatchEvent[], revision) => delivered.push([events.map((e) => e.kv.key), revision]),
    onCompacted: () => assert.fail("not compacted"),
    onWarning: () => {},
  });
  return { watch, delivered };
}
