/**
 * The "no answer within N ms" limit of unary calls, for every call of a client with one timer.
 *
 * Why not a timer per call (as node:http2's stream setTimeout was): it arms a timer per
 * stream, re-arms it on every read and write and clears it on close, on every call. Here a call is an entry in a set; one interval, running only while calls
 * are open, counts ticks and cuts the calls that have seen nothing for the timeout with
 * RST_STREAM CANCEL (a call's data moves its mark forward).
 */
import { ErrorCode } from "./h2/frames.js";

/** What a deadline cuts: an HTTP/2 stream (h2/stream.ts). */
export interface Cancellable {
  reset(code: number): void;
}

/** One open call. */
export interface CallDeadline {
  readonly stream: Cancellable;
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
  add(stream: Cancellable): CallDeadline {
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
      call.stream.reset(ErrorCode.CANCEL);
    }
  }
}
