/**
 * What the etcd client's HTTP/2 connection writes: every frame queued in one turn of the event
 * loop (the calls made by all the callbacks of one poll phase, their HEADERS and DATA,
 * WINDOW_UPDATEs, ACKs) goes out in one socket write, as one buffer when small, else corked so
 * the socket writes them together.
 *
 * Why a turn of the loop (setImmediate) and not a tick (process.nextTick): each HTTP request a
 * replica serves arrives in an I/O callback of its own, so a write per tick was a socket write
 * per etcd call, and on loopback the sender's write also pays the kernel's delivery to etcd and
 * etcd a read and a wake-up per call. With many clients creating, many requests arrive in one
 * poll phase; their transactions reach etcd together, in fewer reads and wake-ups of etcd's (the
 * bench's etcd CREATE part shows etcd's CPU per create). One request alone waits only for the
 * rest of its poll phase. A queue of
 * FLUSH_AT_BYTES or more is written at once, so a bulk of calls never waits for a whole phase.
 *
 * Frames that may wait (emitLater: the ACK of a PING) go out with the next write, or on their own
 * once they have waited `maxDelayMs`. Why: etcd (grpc-go's bandwidth estimator) sends a PING
 * after every request it receives, so an ACK written at once was a socket write of ours and a
 * wake-up of etcd's for every call; riding on the next request it costs neither. RFC 9113 asks for an ACK, not for one at
 * once; no one waits on etcd's estimator pings, and a keepalive ping waits its delay at most.
 */
import type { Socket } from "node:net";

const CONCAT_BELOW = 65_536;
/** Queued bytes written at once rather than at the end of the loop's turn. */
export const FLUSH_AT_BYTES = 65_536;

export class SocketOutput {
  private out: Buffer[] = [];
  private bytes = 0;
  private stopped = false;
  /** Frames waiting for the next write (emitLater), and the timer that sends them at the latest. */
  private later: Buffer[] = [];
  private laterTimer: NodeJS.Timeout | undefined;

  constructor(private readonly socket: Socket) {}

  emit(bytes: Buffer): void {
    if (this.stopped) return;
    if (this.out.length === 0) {
      setImmediate(() => this.flush());
      if (this.later.length > 0) this.takeLater();
    }
    this.out.push(bytes);
    this.bytes += bytes.length;
    if (this.bytes >= FLUSH_AT_BYTES) this.flush();
  }

  /** Bytes that go out with the next write, or alone after `maxDelayMs` when nothing else is written. */
  emitLater(bytes: Buffer, maxDelayMs: number): void {
    if (this.stopped) return;
    if (this.out.length > 0) {
      this.emit(bytes); // a write is due in this turn anyway
      return;
    }
    this.later.push(bytes);
    this.laterTimer ??= setTimeout(() => {
      this.laterTimer = undefined;
      this.flush();
    }, maxDelayMs);
  }

  private takeLater(): void {
    for (const b of this.later) {
      this.out.push(b);
      this.bytes += b.length;
    }
    this.later = [];
    clearTimeout(this.laterTimer);
    this.laterTimer = undefined;
  }

  /** Writes what is queued now (before the socket ends). */
  flush(): void {
    if (this.later.length > 0) this.takeLater();
    if (this.out.length === 0 || this.stopped) return;
    const out = this.out;
    const bytes = this.bytes;
    this.out = [];
    this.bytes = 0;
    if (out.length === 1 || bytes < CONCAT_BELOW) {
      this.socket.write(out.length === 1 ? out[0]! : Buffer.concat(out, bytes));
      return;
    }
    this.socket.cork();
    for (const b of out) this.socket.write(b);
    this.socket.uncork();
  }

  /** Drops what is queued and anything emitted later (the socket is gone). */
  stop(): void {
    this.stopped = true;
    this.out = [];
    this.later = [];
    clearTimeout(this.laterTimer);
    this.laterTimer = undefined;
  }
}
