/**
 * Writes one watch's frames to its connection, once per pass of the event loop: the frames of
 * every event delivered in one pass (a group commit's events reach all watchers in one pass)
 * go out as one buffer in one write, so one TLS record and one syscall per watcher per pass.
 * One scheduled flush serves every watcher (not a cork and a nextTick per response as node's
 * res.write does).
 */
import type { Frame } from "./watch-frame.js";

/** Where the bytes go: the response's socket (frames carry their chunk framing) or the response. */
export interface WatchTarget {
  write(data: Buffer): unknown;
  readonly writableLength: number;
  readonly destroyed?: boolean;
}

export class WatchWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** `framed`: the target is the raw connection of a chunked response (write the whole chunk). */
  constructor(
    private readonly target: WatchTarget,
    private readonly framed: boolean,
  ) {}

  /** Bytes the client has not taken yet: queued here and in the connection. */
  get buffered(): number {
    return this.pendingBytes + this.target.writableLength;
  }

  push(frame: Frame): void {
    const bytes = this.framed ? frame.chunk : frame.line;
    if (this.pending.length === 0) due.push(this);
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (!scheduled) {
      scheduled = true;
      // After the current pass: microtasks (each watcher's delivery) run before next ticks.
      process.nextTick(flushDue);
    }
  }

  /** Writes what is queued now (also before the response ends). */
  flush(): void {
    if (this.pending.length === 0) return;
    const data = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    if (!this.target.destroyed) this.target.write(data);
  }
}

let due: WatchWriter[] = [];
let scheduled = false;

function flushDue(): void {
  scheduled = false;
  const writers = due;
  due = [];
  for (const w of writers) {
    try {
      w.flush();
    } catch {
      // A connection that cannot take writes is closing: its watch ends on its close event.
    }
  }
}
