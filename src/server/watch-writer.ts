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
 * A fixed minimum time between rounds was tried: under load rounds are already that far apart
 * (a round of 1,000 writes takes that long), so it changed nothing but the latency.
 *
 * A long round is followed by a rest as long as itself (`restRatio`, at most `maxRestMs`) before
 * the next round starts: a round of 1,000 writes takes tens of ms, and run back to back, rounds
 * left the writes no time, so patches of one object (each waiting for the one before it) made
 * one commit per round: with 10 objects written, 10 events per write at most, however far
 * behind the server was. During the rest the writes go on, and the next round carries all
 * their events in one write per watcher (half as many writes, each with a fixed cost in TLS,
 * the kernel and node's stream, and as many reads fewer for the clients). Rounds shorter than
 * `minRestMs` (up to a few hundred watchers) are not held back: there the rest only added
 * latency, for no CPU saved; nor are rounds of fewer than
 * `minRestWriters` writes, which last long only when something interrupted them.
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
    if (this.pending.length === 0) watchRounds.add(this);
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
export class WatchRounds {
  /** The rest after a round, as a share of the round's own duration. */
  restRatio = 1;
  /** Rests shorter than this are skipped (the next round runs in the next pass). */
  minRestMs = 10;
  /** The longest rest: what the rest may add to an event's latency. */
  maxRestMs = 50;
  /**
   * Rounds that wrote to fewer watchers are never followed by a rest: a round of a few writes
   * that took long was interrupted (a GC pause, the process descheduled), it did not cost that
   * long, and resting after it would only add to the latency of the next events (one watcher
   * of a replica's writes in the two-replica bench would wait up to maxRestMs after each stall).
   */
  minRestWriters = 100;
  private due: WatchWriter[] = [];
  private scheduled = false;
  /** When the rest after the last round ends (performance.now()). */
  private restUntil = 0;
  private readonly runNow = () => this.run();

  add(writer: WatchWriter): void {
    this.due.push(writer);
    if (this.scheduled) return;
    this.scheduled = true;
    const rest = this.restUntil - performance.now();
    // Next ticks run once the microtask queue is empty: every watcher's delivery of this pass is queued by then.
    if (rest < this.minRestMs) process.nextTick(this.runNow);
    else setTimeout(this.runNow, rest);
  }

  private run(): void {
    const started = performance.now();
    const written = this.write();
    const ended = performance.now();
    this.restUntil =
      written < this.minRestWriters ? 0 : ended + Math.min(this.maxRestMs, (ended - started) * this.restRatio);
  }

  /** Writes every due writer's frames; how many writers that was. */
  private write(): number {
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
    return writers.length;
  }
}

function sameFrames(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Exported for tests (its timing settings). */
export const watchRounds = new WatchRounds();
