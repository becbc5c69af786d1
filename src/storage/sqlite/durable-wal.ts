/**
 * Makes committed SQLite transactions durable without blocking the event loop.
 *
 * With `synchronous=FULL`, SQLite fsyncs the WAL inside every COMMIT, and better-sqlite3 runs
 * COMMIT on the calling thread: the whole server waits for the disk once per group commit (a
 * visible share of a create-heavy load's time). Here the connection runs with
 * `synchronous=NORMAL` — in WAL mode that syncs at checkpoints (the WAL before its pages are
 * copied into the database file, the database file before the WAL is reused) but not at
 * COMMIT — and this class fsyncs the WAL file after each COMMIT on libuv's thread pool. The
 * storage acknowledges, publishes and lets readers see a batch only once an fsync that started
 * after its COMMIT has returned. For every acknowledged write that is exactly FULL's guarantee:
 * its WAL frames (and the WAL header, if the WAL was restarted) were on disk before anyone
 * learned of it; a crash loses only writes nobody was told about. Meanwhile the event loop
 * parses, checks and commits the next batch, and one fsync covers every batch committed before
 * it started.
 *
 * fsync acts on the file (the inode), not the descriptor, so a read-only descriptor of the
 * `-wal` file is enough; the WAL file stays the same file while the database is open (SQLite
 * removes it only when the last connection closes). The directory is fsynced once at open so the
 * WAL file's own entry is durable too. An in-memory database has no WAL: every commit counts as
 * durable at once.
 */
import { closeSync, fsync, fsyncSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";

/** Told how long each WAL fsync took, in seconds (src/metrics sets it). */
export const walSyncTiming: { observe?: (seconds: number) => void } = {};

export class DurableWal {
  /** Highest committed revision asked to be durable. */
  private target = 0;
  /** Highest revision known to be on disk. */
  private durable = 0;
  private syncing = false;
  private failed = false;
  private readonly idleWaiters: Array<() => void> = [];

  constructor(
    private readonly fd: number | undefined,
    private readonly onDurable: (revision: number) => void,
    private readonly onFailure: (error: Error) => void,
    private readonly syncFile: WalSync = fsync,
  ) {}

  /** A transaction up to `revision` committed: onDurable(≥ revision) follows once it is on disk. */
  committed(revision: number): void {
    // In memory, or a batch that wrote nothing new (every write in it failed): nothing to wait for.
    if (this.fd === undefined || revision <= this.durable) {
      this.onDurable(Math.max(revision, this.durable));
      return;
    }
    if (revision > this.target) this.target = revision;
    this.startSync();
  }

  /** What the database held when it was opened (and the WAL fsynced) is durable. */
  opened(revision: number): void {
    this.durable = revision;
    this.target = revision;
  }

  /** An fsync is running: what commits now waits for the next one anyway. */
  get busy(): boolean {
    return this.syncing;
  }

  /** Resolves once every committed revision is durable (or the fsync failed). */
  idle(): Promise<void> {
    if (!this.syncing) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }

  private startSync(): void {
    if (this.syncing || this.failed || this.durable >= this.target) return;
    this.syncing = true;
    const upTo = this.target;
    const started = performance.now();
    this.syncFile(this.fd!, (err) => {
      this.syncing = false;
      walSyncTiming.observe?.((performance.now() - started) / 1000);
      if (err) {
        this.failed = true;
        this.onFailure(err);
      } else {
        this.durable = upTo;
        this.onDurable(upTo);
        this.startSync();
      }
      if (!this.syncing) for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
  }
}

/** fs.fsync's shape; tests hold or fail it to see what waits for the disk. */
export type WalSync = (fd: number, done: (err: NodeJS.ErrnoException | null) => void) => void;

/** Switches the connection to synchronous=NORMAL and opens its WAL file for fsync. */
export function openDurableWal(
  db: Database.Database,
  onDurable: (revision: number) => void,
  onFailure: (error: Error) => void,
  syncFile: WalSync = fsync,
): DurableWal {
  if (db.memory) return new DurableWal(undefined, onDurable, onFailure);
  db.pragma("synchronous = NORMAL");
  const dir = openSync(dirname(db.name), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
  const wal = openSync(`${db.name}-wal`, "r");
  // What a predecessor committed but never synced (it crashed between the two) is made durable
  // before anyone reads it.
  fsyncSync(wal);
  return new DurableWal(wal, onDurable, onFailure, syncFile);
}
