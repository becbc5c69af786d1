/**
 * What the etcd client's HTTP/2 connection writes: every frame queued in one tick (the calls made
 * by one batch of callbacks, their HEADERS and DATA, WINDOW_UPDATEs, ACKs) goes out in one socket
 * write, as one buffer when small, else corked so the socket writes them together.
 */
import type { Socket } from "node:net";

const CONCAT_BELOW = 65_536;

export class SocketOutput {
  private out: Buffer[] = [];
  private bytes = 0;
  private stopped = false;

  constructor(private readonly socket: Socket) {}

  emit(bytes: Buffer): void {
    if (this.stopped) return;
    if (this.out.length === 0) process.nextTick(() => this.flush());
    this.out.push(bytes);
    this.bytes += bytes.length;
  }

  /** Writes what is queued now (before the socket ends). */
  flush(): void {
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
  }
}
