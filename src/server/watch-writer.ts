/**
 * Writes watch frames to the watchers' connections in rounds: every frame queued for a watcher
 * since its last round goes out as one buffer in one write. A write costs the same whatever its
 * size (a TLS record, a syscall, and on the client a read and a decryption), and with many
 * watchers those costs are most of the work, so:
 * - one round serves every watcher (one scheduled callback, not a cork and a nextTick per
 *   response as node's res.write does);
 * - rounds are at least `cadenceMs` apart: the first event after a quiet spell goes out in the
 *   current pass, later ones wait for the next round, so under load each write carries several
 *   events and the number of writes per watcher is bounded (by 1000 / cadenceMs per second);
 * - watchers with the same queued frames (the usual case: no selectors) share one concatenation.
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
  /** Least time between two rounds (0: every pass of the event loop that queued frames). */
  cadenceMs = Number(process.env.PLATFORM_WATCH_CADENCE_MS ?? 0);
  private due: WatchWriter[] = [];
  private scheduled = false;
  private last = 0;

  add(writer: WatchWriter): void {
    this.due.push(writer);
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.last + this.cadenceMs - performance.now();
    // After the current pass: every watcher's delivery of this pass (microtasks) is queued by then.
    if (wait <= 0) process.nextTick(() => this.run());
    else setTimeout(() => this.run(), wait);
  }

  private run(): void {
    this.scheduled = false;
    this.last = performance.now();
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
