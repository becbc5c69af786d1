/**
 * An append-only log file rotated by size, as kube-apiserver's --audit-log-maxsize and
 * --audit-log-maxbackup do: when the next line would pass the limit, FILE becomes FILE.1
 * (FILE.1 becomes FILE.2, and so on), backups beyond the count are removed, and a new FILE starts.
 */
import { createWriteStream, existsSync, openSync, renameSync, rmSync, statSync, type WriteStream } from "node:fs";

export interface RotationOptions {
  /** Bytes before rotating (0: never). */
  maxBytes: number;
  /** Rotated files kept (0: none kept). */
  maxBackups: number;
}

export class RotatingFile {
  private out: WriteStream;
  private size: number;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly options: RotationOptions,
  ) {
    this.size = existsSync(path) ? statSync(path).size : 0;
    this.out = this.open();
  }

  write(line: string): void {
    if (this.closed) return; // a watch that ends while the server shuts down
    const bytes = Buffer.byteLength(line);
    if (this.options.maxBytes > 0 && this.size > 0 && this.size + bytes > this.options.maxBytes) this.rotate();
    this.size += bytes;
    this.out.write(line);
  }

  close(): Promise<void> {
    this.closed = true;
    return new Promise((resolve) => this.out.end(resolve));
  }

  private open(): WriteStream {
    // Opened now, not on the next tick: a rotation right after must find the file.
    return createWriteStream("", { fd: openSync(this.path, "a", 0o600) });
  }

  /** Renames now (the old stream keeps writing what it has queued into the renamed file). */
  private rotate(): void {
    const { maxBackups } = this.options;
    this.out.end();
    rmSync(`${this.path}.${maxBackups}`, { force: true });
    for (let i = maxBackups - 1; i >= 1; i--) {
      if (existsSync(`${this.path}.${i}`)) renameSync(`${this.path}.${i}`, `${this.path}.${i + 1}`);
    }
    if (maxBackups > 0) renameSync(this.path, `${this.path}.1`);
    else rmSync(this.path, { force: true });
    this.size = 0;
    this.out = this.open();
  }
}
