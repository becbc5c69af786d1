/**
 * Writes watch frames to the watchers' connections in rounds: every frame queued for a watcher
 * since its last round goes out as one buffer in one write. Each write has a fixed cost on top
 * of its bytes (a TLS record, a syscall, and on the client a read and a decryption), and with
 * many watchers socket writes are most of the server's work, so:
 * - a round runs once per pass of the event loop that queued frames, after every watcher's
 *   delivery of that pass: a group commit's events reach each watcher in one write, and under
 *   load (commits batch more writes while a round runs) each write carries more events;
 * - one round serves every watcher (one scheduled callback, not a cork and a nextTick per
 *   response as node's res.write does);
 * - watchers with the same queued frames (the usual case: no selectors) share one concatenation.
 * A minimum time between rounds was tried (10-25 ms): under load rounds are already that far
 * apart (a round of 1,000 writes takes that long), so it changed nothing but the latency.
 */
import type { Frame } from "./watch-frame.js";

/** Where the bytes go: the response's socket (frames carry their chunk framing) or the response. */
export interface WatchTarget {
  write(data: Buffer): unknown;
  readonly writableLength: number;
  readonly destroyed?: boolean;
}

export class WatchWriter {
  /** Frames queued since the last round. */
  pending: Buffer[] = [];
  private pendingBytes = 0;

  /** `framed`: the target is the raw connection of a chunked response (write the whole chunk). */
  constructor(
    private readonly target: WatchTarget,
    private readonly framed: boolean,
  ) {}

  /** What the connection held after this writer's last write: it can only have shrunk since. */
  private heldAfterWrite = 0;

  /** True when the client has not taken more than `limit` bytes (queued here and in the connection). */
  backlogOver(limit: number): boolean {
    // The cheap bound first: the connection's own count is a getter, and this runs per event.
    if (this.pendingBytes + this.heldAfterWrite <= limit) return false;
    return this.pendingBytes + this.target.writableLength > limit;
  }

  push(frame: Frame): void {
    if (this.pending.length === 0) rounds.add(this);
    this.pending.push(this.framed ? frame.chunk : frame.line);
    this.pendingBytes += this.framed ? frame.chunk.length : frame.line.length;
  }

  /** Writes what is queued now (a round does it, and so does the end of the response). */
  flush(data?: Buffer): void {
    if (this.pending.length === 0) return;
    data ??= this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    if (this.target.destroyed) return;
    this.target.write(data);
    this.heldAfterWrite = this.target.writableLength;
  }
}

/** The rounds of all watch writers of this process. */
class Rounds {
  private due: WatchWriter[] = [];
  private scheduled = false;

  add(writer: WatchWriter): void {
    this.due.push(writer);
    if (this.scheduled) return;
    this.scheduled = true;
    // Next ticks run once the microtask queue is empty: every watcher's delivery of this pass is queued by then.
    process.nextTick(() => this.run());
  }

  private run(): void {
    this.scheduled = false;
    const writers = this.due;
    this.due = [];
    let shared: Buffer[] = [];
    let sharedData: Buffer | undefined;
    for (const w of writers) {
      // Each watcher of an unfiltered watch holds the same frames: concatenate them once.
      let data: Buffer | undefined;
      if (w.pending.length > 1) {
        if (sharedData === undefined || !sameFrames(w.pending, shared)) {
          shared = w.pending;
          sharedData = Buffer.concat(shared);
        }
        data = sharedData;
      }
      try {
        w.flush(data);
      } catch {
        // A connection that cannot take writes is closing: its watch ends on its close event.
      }
    }
  }
}

function sameFrames(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const rounds = new Rounds();
