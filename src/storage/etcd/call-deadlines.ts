/**
 * The "no answer within N ms" limit of unary calls, for every call of a client with one timer.
 *
 * Why not the stream's own setTimeout, as before: on node:http2 it binds a callback, arms a timer
 * and a 'timeout' listener per stream, re-arms the timer on every read and write and clears it on
 * close, about 1% of a create's server CPU on etcd. Here a call is an entry in a set; one
 * interval, running only while calls are open, counts ticks and cuts the calls that have seen
 * nothing for the timeout (a call's data moves its mark forward, as the stream timeout did).
 */
import { type ClientHttp2Stream, constants as h2 } from "node:http2";

/** One open call. */
export interface CallDeadline {
  readonly stream: ClientHttp2Stream;
  /** The tick of the call's last sign of life. */
  seen: number;
  /** Cut for want of an answer. */
  timedOut: boolean;
}

/** Ticks per timeout: a call is cut between timeoutMs and 1.1 × timeoutMs after its last activity. */
const TICKS = 10;

export class CallDeadlines {
  private readonly open = new Set<CallDeadline>();
  /** Incremented every timeoutMs / TICKS while calls are open. */
  tick = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(readonly timeoutMs: number) {}

  /** Follows a call until done() (its stream closed). */
  add(stream: ClientHttp2Stream): CallDeadline {
    const call: CallDeadline = { stream, seen: this.tick, timedOut: false };
    this.open.add(call);
    this.timer ??= setInterval(() => this.sweep(), this.timeoutMs / TICKS).unref();
    return call;
  }

  done(call: CallDeadline): void {
    this.open.delete(call);
  }

  private sweep(): void {
    this.tick++;
    if (this.open.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
      return;
    }
    for (const call of this.open) {
      if (this.tick - call.seen <= TICKS) continue;
      this.open.delete(call);
      call.timedOut = true;
      call.stream.close(h2.NGHTTP2_CANCEL);
    }
  }
}
