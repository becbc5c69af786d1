/**
 * The embedded storage backend: a kine-style append-only log in one SQLite file.
 *
 * - Durability: WAL; after each COMMIT the WAL file is fsynced on libuv's thread pool, and only
 *   then are the batch's writes acknowledged, delivered to watchers and visible to reads. That is
 *   synchronous=FULL's guarantee (FULL fsyncs the WAL inside COMMIT) without blocking the event
 *   loop for the fsync: the next batch is parsed, checked and committed meanwhile, and one fsync
 *   covers every batch committed before it started (see durable-wal.ts).
 * - Group commit: writes issued in the same event-loop turn are committed together in one SQLite
 *   transaction, each under its own SAVEPOINT so a failing write (or a failing multi-key txn) is
 *   rolled back alone and rejects only its own promise.
 * - Watch: history comes from the log (up to the published revision), live events from an
 *   in-process fan-out when a batch is published (after its fsync). Reading history and
 *   subscribing happen in one synchronous step, so no batch is published in between: nothing is
 *   missed or repeated.
 *   This assumes one process owns the database file (the server); see docs/storage.md.
 */
import Database from "better-sqlite3";
import { StorageError } from "../errors.js";
import {
  type DeleteResult,
  type KeyValue,
  type ListOptions,
  type ListResult,
  newKeyValue,
  type Storage,
  type TxnOp,
  type TxnResult,
  type WatchCallbacks,
  type WatchEvent,
  type Watcher,
  type WatchOptions,
} from "../interface.js";
import { prefixEnd } from "../key-range.js";
import { QueuedWatcher } from "../queued-watcher.js";
import { type AutoCompactionOptions, compactionTarget, type RevisionSample } from "./auto-compaction.js";
import { type DurableWal, openDurableWal, type WalSync } from "./durable-wal.js";
import { applyPragmas, type KvRow, migrate } from "./schema.js";
import { acquireStoreLock, type StoreLock } from "./store-lock.js";

export interface SqliteStorageOptions {
  /** Revisions automatic compaction always keeps (default 10,000). */
  readonly compactMinHistory?: number;
  /** History younger than this is never compacted automatically (default 5 minutes). */
  readonly compactMinAgeMs?: number;
  /** When > 0, start automatic compaction at this interval on open (default: off). */
  readonly compactIntervalMs?: number;
  /** How the WAL file is fsynced after a commit (default fs.fsync; tests hold it back). */
  readonly walSync?: WalSync;
  /** Own the store while open (store-lock.ts): another process that asks for it is refused. */
  readonly exclusive?: boolean;
}

const DEFAULT_MIN_HISTORY = 10_000;
const DEFAULT_MIN_AGE_MS = 5 * 60_000;
const DEFAULT_COMPACT_INTERVAL_MS = 60_000;
/** Replayed history is handed to a watcher in chunks of about this many events. */
const REPLAY_CHUNK = 1000;

/** The outcome of one queued write (a single op is a txn of one). */
interface Applied {
  readonly revision: number;
  readonly events: readonly WatchEvent[];
}

/** A committed batch waiting for its WAL fsync before it is acknowledged and published. */
interface CommittedBatch {
  /** The revision of its last write: visible once the batch is published. */
  readonly revision: number;
  readonly writes: readonly PendingWrite[];
  readonly outcomes: readonly Outcome[];
}

type Outcome = { ok: true; applied: Applied } | { ok: false; error: unknown };

interface PendingWrite {
  readonly ops: readonly TxnOp[];
  readonly resolve: (applied: Applied) => void;
  readonly reject: (err: unknown) => void;
}

type LatestRow = Pick<KvRow, "deleted" | "create_revision" | "revision" | "value">;
type ListRow = Pick<KvRow, "name" | "value" | "create_revision" | "revision">;
interface HistoryRow extends KvRow {
  readonly prev_value: Buffer | null;
  readonly prev_create_revision: number | null;
}

export function openSqliteStorage(path: string, options: SqliteStorageOptions = {}): SqliteStorage {
  return new SqliteStorage(path, options);
}

export class SqliteStorage implements Storage {
  private readonly db: Database.Database;
  private readonly stmt: Statements;
  /** Id of the newest row ever written (ids of a batch are assigned from here). */
  private lastId: number;
  /**
   * Revision of the last published write: committed and on disk. Reads, watches and
   * currentRevision() see up to here; writes check against everything committed.
   */
  private revision: number;
  private readonly wal: DurableWal;
  private committed: CommittedBatch[] = [];
  private compacted: number;
  private queue: PendingWrite[] = [];
  private flushHandle: NodeJS.Immediate | undefined;
  /** Writes queued while an fsync ran: commit them when it returns. */
  private flushAfterSync = false;
  private readonly watchers = new Set<QueuedWatcher>();
  private closed = false;
  private durabilityFailure: StorageError | undefined;
  private commitCount = 0;
  private autoCompaction: NodeJS.Timeout | undefined;
  private readonly options: SqliteStorageOptions;
  private readonly lock: StoreLock | undefined;

  constructor(path: string, options: SqliteStorageOptions = {}) {
    this.options = Object.freeze({ ...options });
    this.lock = options.exclusive && path !== ":memory:" ? acquireStoreLock(path) : undefined;
    try {
      this.db = new Database(path);
    } catch (err) {
      this.lock?.release();
      throw err;
    }
    try {
      applyPragmas(this.db);
      migrate(this.db);
      this.wal = openDurableWal(
        this.db,
        (durable) => {
          this.publish(durable);
          if (this.flushAfterSync) this.flush();
        },
        (error) => this.failDurability(error),
        options.walSync,
      );
    } catch (err) {
      this.db.close();
      this.lock?.release();
      throw err;
    }
    this.stmt = prepareStatements(this.db);
    // sqlite_sequence remembers the highest id even after compaction deleted that row.
    const seq = this.stmt.sequence.get() as { seq: number } | undefined;
    const maxRevision = (this.stmt.maxRevision.get() as { r: number | null }).r ?? 0;
    this.lastId = Math.max(seq?.seq ?? 0, maxRevision);
    this.revision = this.lastId;
    this.wal.opened(this.lastId);
    this.compacted = (this.stmt.getMeta.get("compacted_revision") as { value: number } | undefined)?.value ?? 0;
    if ((options.compactIntervalMs ?? 0) > 0) this.startAutoCompaction({ intervalMs: options.compactIntervalMs });
  }

  /** Number of group commits so far (observability, and lets tests see batching). */
  get commits(): number {
    return this.commitCount;
  }

  // --- writes -------------------------------------------------------------------------------

  async create(key: string, value: Buffer): Promise<number> {
    return (await this.enqueue([{ type: "create", key, value }])).revision;
  }

  async update(key: string, value: Buffer, expectedModRevision: number): Promise<number> {
    return (await this.enqueue([{ type: "update", key, value, expectedModRevision }])).revision;
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const applied = await this.enqueue([{ type: "delete", key, expectedModRevision }]);
    return { revision: applied.revision, prev: applied.events[0]!.prevKv! };
  }

  async txn(ops: readonly TxnOp[]): Promise<TxnResult> {
    this.assertOpen();
    // Like etcd, an empty transaction writes nothing and does not bump the revision.
    if (ops.length === 0) return { revision: this.revision };
    return { revision: (await this.enqueue(ops)).revision };
  }

  private enqueue(ops: readonly TxnOp[]): Promise<Applied> {
    if (this.closed) return Promise.reject(unavailable("storage is closed"));
    if (this.durabilityFailure) return Promise.reject(this.durabilityFailure);
    // Copy values: the caller may reuse its buffer before the batch commits.
    const owned = ops.map((op): TxnOp => (op.type === "delete" ? op : { ...op, value: Buffer.from(op.value) }));
    return new Promise<Applied>((resolve, reject) => {
      this.queue.push({ ops: owned, resolve, reject });
      // setImmediate (not a microtask) so that every write of this turn, including ones issued
      // from promise continuations, lands in the same batch.
      this.flushHandle ??= setImmediate(() => this.flush());
    });
  }

  /**
   * Commit the queued writes in one transaction; they are resolved and watchers notified once
   * the WAL fsync after it returns. While an fsync runs, writes keep queueing and commit when it
   * returns (`now` overrides): they could not be acknowledged sooner anyway, and one bigger
   * transaction writes far fewer pages than several small ones (every commit rewrites the index
   * pages it touches).
   */
  private flush(now = false): void {
    if (this.flushHandle !== undefined) clearImmediate(this.flushHandle);
    this.flushHandle = undefined;
    if (this.wal.busy && !now) {
      this.flushAfterSync = true;
      return;
    }
    this.flushAfterSync = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;

    const startId = this.lastId;
    const outcomes: Outcome[] = [];
    try {
      this.stmt.begin.run();
      for (const write of batch) {
        this.stmt.savepoint.run();
        try {
          outcomes.push({ ok: true, applied: this.apply(write.ops) });
          this.stmt.release.run();
        } catch (error) {
          // SQLite rolls back the whole transaction on some errors (I/O, disk full): then the
          // batch is lost and handled below; otherwise undo only this write.
          if (!this.db.inTransaction) throw error;
          this.stmt.rollbackTo.run();
          this.stmt.release.run();
          outcomes.push({ ok: false, error });
        }
      }
      this.stmt.commit.run();
    } catch (error) {
      try {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
      } catch {
        // Nothing more to undo: the batch is rejected either way.
      }
      this.lastId = startId;
      const failure = unavailable(`storage write failed: ${error instanceof Error ? error.message : String(error)}`);
      for (const write of batch) write.reject(failure);
      return;
    }
    this.commitCount++;
    this.committed.push({ revision: this.lastId, writes: batch, outcomes });
    this.wal.committed(this.lastId);
  }

  /** Acknowledges and publishes, in commit order, every batch up to a revision now on disk. */
  private publish(durable: number): void {
    while (this.committed.length > 0 && this.committed[0]!.revision <= durable) {
      const { revision, writes, outcomes } = this.committed.shift()!;
      this.revision = Math.max(this.revision, revision);
      // Watchers first, so that a writer resuming after `await` finds its event already queued.
      // The whole commit is one batch (in revision order): a watch cache passes each batch to
      // every one of its watchers, so per-watcher work is paid once per commit, not per write.
      const events = committedEvents(outcomes);
      if (events.length > 0) for (const watcher of this.watchers) watcher.offer(events);
      for (const watcher of this.watchers) watcher.progress(this.revision);
      writes.forEach((write, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) write.resolve(outcome.applied);
        else write.reject(outcome.error);
      });
    }
  }

  /**
   * The WAL could not be made durable: what was committed since the last good fsync may or may
   * not survive a crash. Its writes are rejected as unavailable (their outcome is unknown, as
   * with an etcd timeout) and the storage takes no more writes.
   */
  private failDurability(error: Error): void {
    const failure = unavailable(`storage fsync failed, outcome unknown: ${error.message}`);
    this.durabilityFailure = failure;
    for (const { writes } of this.committed.splice(0)) for (const write of writes) write.reject(failure);
    // Writes queued behind the failed fsync are refused too (they were never committed).
    for (const write of this.queue.splice(0)) write.reject(failure);
    this.flushAfterSync = false;
  }

  /**
   * Apply one write (all ops at one revision) inside the open transaction, or throw and leave
   * `lastId` untouched (the caller rolls the savepoint back).
   */
  private apply(ops: readonly TxnOp[]): Applied {
    const revision = this.lastId + ops.length;
    let id = this.lastId;
    const events: WatchEvent[] = [];
    const seen = new Set<string>();
    for (const op of ops) {
      // etcd refuses this too ("duplicate key given in txn request"); one revision per key per txn.
      if (seen.has(op.key)) throw new Error(`transaction touches key twice: ${op.key}`);
      seen.add(op.key);
      id++;
      const latest = this.stmt.latest.get(op.key) as LatestRow | undefined;
      const live = latest !== undefined && latest.deleted === 0 ? latest : undefined;
      const prevKv = live && kv(op.key, live.value, live.create_revision, live.revision);
      switch (op.type) {
        case "create": {
          if (live) throw new StorageError("KeyExists", op.key);
          this.stmt.insert.run(id, op.key, 1, 0, revision, latest?.revision ?? 0, revision, op.value);
          events.push({ type: "put", kv: kv(op.key, op.value, revision, revision), revision });
          break;
        }
        case "update": {
          if (!live || !prevKv) throw new StorageError("NotFound", op.key);
          if (live.revision !== op.expectedModRevision) throw conflict(op.key, op.expectedModRevision, live.revision);
          this.stmt.insert.run(id, op.key, 0, 0, live.create_revision, live.revision, revision, op.value);
          events.push({ type: "put", kv: kv(op.key, op.value, live.create_revision, revision), prevKv, revision });
          break;
        }
        case "delete": {
          if (!live || !prevKv) throw new StorageError("NotFound", op.key);
          if (op.expectedModRevision !== undefined && live.revision !== op.expectedModRevision) {
            throw conflict(op.key, op.expectedModRevision, live.revision);
          }
          // The tombstone keeps the last value, so replayed delete events can report it.
          this.stmt.insert.run(id, op.key, 0, 1, live.create_revision, live.revision, revision, live.value);
          events.push({
            type: "delete",
            kv: newKeyValue(prevKv.key, prevKv.value, prevKv.createRevision, revision),
            prevKv,
            revision,
          });
          break;
        }
      }
    }
    this.lastId = id;
    return { revision, events };
  }

  // --- reads --------------------------------------------------------------------------------

  async get(key: string): Promise<KeyValue | undefined> {
    this.assertOpen();
    // Not `latest`: a committed batch may still wait for its fsync, and reads see only published writes.
    const row = this.stmt.latestAsOf.get(key, this.revision) as LatestRow | undefined;
    if (row === undefined || row.deleted !== 0) return undefined;
    return kv(key, row.value, row.create_revision, row.revision);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.assertOpen();
    const asked = options.revision ?? 0;
    if (asked > 0 && asked < this.compacted) {
      throw new StorageError("Compacted", prefix, `revision ${asked} is compacted (oldest: ${this.compacted})`);
    }
    // A future revision reads the current state and reports the revision actually read, so a
    // client never resumes a watch from a revision that does not exist yet.
    const revision = asked > 0 ? Math.min(asked, this.revision) : this.revision;
    const limit = options.limit ?? 0;
    const end = prefixEnd(prefix);
    const params = { start: prefix, end: end ?? "", after: options.after ?? "", rev: revision };
    const statements = end === undefined ? this.stmt.listOpen : this.stmt.listBounded;
    const rows = statements.items.all({ ...params, limit: limit > 0 ? limit + 1 : -1 }) as ListRow[];
    const more = limit > 0 && rows.length > limit;
    const page = (more ? rows.slice(0, limit) : rows).filter((r) => r.name.startsWith(prefix));
    let remaining = 0;
    if (more && options.countRemaining !== false) {
      const last = page.length > 0 ? page[page.length - 1]!.name : params.after;
      remaining = (statements.count.get({ ...params, after: last }) as { n: number }).n;
    }
    return {
      items: page.map((r) => kv(r.name, r.value, r.create_revision, r.revision)),
      revision,
      more,
      remaining,
    };
  }

  async currentRevision(): Promise<number> {
    this.assertOpen();
    return this.revision;
  }

  currentRevisionNow(): number {
    this.assertOpen();
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    this.assertOpen();
    return this.compacted;
  }

  // --- watch --------------------------------------------------------------------------------

  watch(prefix: string, options: WatchOptions, callbacks: WatchCallbacks): Watcher {
    const watcher = new QueuedWatcher(prefix, options.afterRevision, callbacks, (w) => this.watchers.delete(w));
    if (this.closed) {
      watcher.fail(unavailable("storage is closed"));
      return watcher;
    }
    if (options.afterRevision < this.compacted) {
      watcher.fail(
        new StorageError(
          "Compacted",
          prefix,
          `revision ${options.afterRevision} is compacted (oldest: ${this.compacted})`,
        ),
      );
      return watcher;
    }
    // Read published history and subscribe in one synchronous step: no batch can be published in
    // between (committed batches not yet published arrive through the subscription).
    const end = prefixEnd(prefix);
    const rows = (end === undefined ? this.stmt.historyOpen : this.stmt.historyBounded).all({
      after: options.afterRevision,
      upto: this.revision,
      start: prefix,
      end: end ?? "",
    }) as HistoryRow[];
    let chunk: WatchEvent[] = [];
    for (const row of rows) {
      // Chunks end on a revision boundary so a transaction is never split across calls.
      if (chunk.length >= REPLAY_CHUNK && chunk[chunk.length - 1]!.revision !== row.revision) {
        watcher.offer(chunk);
        chunk = [];
      }
      chunk.push(historyEvent(row));
    }
    if (chunk.length > 0) watcher.offer(chunk);
    this.watchers.add(watcher);
    return watcher;
  }

  // --- compaction ---------------------------------------------------------------------------

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    this.compactSync(revision);
  }

  private compactSync(revision: number): void {
    if (revision > this.revision) {
      throw new RangeError(`cannot compact to ${revision}: current revision is ${this.revision}`);
    }
    if (revision <= this.compacted) return;
    this.db.transaction(() => {
      this.stmt.compact.run({ rev: revision });
      this.stmt.setMeta.run("compacted_revision", revision);
    })();
    this.compacted = revision;
  }

  /**
   * Compact periodically, keeping at least `minRevisions` revisions and `minAgeMs` of history
   * (see auto-compaction.ts). Returns a function that stops it; close() stops it too.
   */
  startAutoCompaction(options: AutoCompactionOptions = {}): () => void {
    this.stopAutoCompaction();
    const intervalMs = options.intervalMs ?? DEFAULT_COMPACT_INTERVAL_MS;
    const minRevisions = options.minRevisions ?? this.options.compactMinHistory ?? DEFAULT_MIN_HISTORY;
    const minAgeMs = options.minAgeMs ?? this.options.compactMinAgeMs ?? DEFAULT_MIN_AGE_MS;
    const samples: RevisionSample[] = [];
    const tick = (): void => {
      if (this.closed) return;
      const now = Date.now();
      samples.push({ at: now, revision: this.revision });
      const target = compactionTarget(samples, now, this.revision, minRevisions, minAgeMs);
      try {
        if (target > this.compacted) this.compactSync(target);
      } catch (err) {
        // A failed compaction only delays the next one; it must not crash the server from a timer.
        process.emitWarning(`storage auto-compaction failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    };
    tick();
    const timer = setInterval(tick, intervalMs);
    timer.unref(); // compaction alone must not keep the process alive
    this.autoCompaction = timer;
    return () => {
      if (this.autoCompaction === timer) this.stopAutoCompaction();
    };
  }

  private stopAutoCompaction(): void {
    if (this.autoCompaction !== undefined) clearInterval(this.autoCompaction);
    this.autoCompaction = undefined;
  }

  // --- lifecycle ----------------------------------------------------------------------------

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopAutoCompaction();
    // Writes already accepted are committed, made durable and acknowledged before the database closes.
    // (A commit deferred behind a running fsync happens when that fsync returns.)
    do {
      this.flush(true);
      await this.wal.idle();
    } while (this.queue.length > 0);
    for (const watcher of this.watchers) watcher.end();
    this.watchers.clear();
    this.wal.close();
    this.db.close();
    this.lock?.release();
  }

  private assertOpen(): void {
    if (this.closed) throw unavailable("storage is closed");
  }
}

type Statements = ReturnType<typeof prepareStatements>;

function prepareStatements(db: Database.Database) {
  // Latest version of every key in [start, end) after `after`, as of revision `rev`. The grouped
  // subquery walks the (name, revision) index in name order and drives the join (CROSS JOIN fixes
  // the order), so a LIMITed page stops early instead of sorting the whole range.
  const latestIn = (bounded: boolean) => `
    SELECT kv.name, kv.value, kv.create_revision, kv.revision FROM (
      SELECT name, MAX(revision) AS rev FROM kv
      WHERE name >= @start ${bounded ? "AND name < @end" : ""} AND name > @after AND revision <= @rev
      GROUP BY name ORDER BY name
    ) AS latest CROSS JOIN kv ON kv.name = latest.name AND kv.revision = latest.rev
    WHERE kv.deleted = 0`;
  const listStatements = (bounded: boolean) => ({
    items: db.prepare(`${latestIn(bounded)} ORDER BY latest.name LIMIT @limit`),
    count: db.prepare(`SELECT COUNT(*) AS n FROM (${latestIn(bounded)})`),
  });
  // Log rows after a revision, with the previous version's value for updates (prevKv). Watches
  // resume from recent revisions, so the scan goes by the revision index: the unary '+' keeps
  // SQLite from choosing the name range instead (which would read the prefix's whole history).
  const history = (bounded: boolean) =>
    db.prepare(`
      SELECT k.*, p.value AS prev_value, p.create_revision AS prev_create_revision FROM kv AS k
      LEFT JOIN kv AS p ON k.created = 0 AND k.deleted = 0 AND p.name = k.name AND p.revision = k.prev_revision
      WHERE k.revision > @after AND k.revision <= @upto AND +k.name >= @start ${bounded ? "AND +k.name < @end" : ""}
      ORDER BY k.revision, k.id`);
  return {
    begin: db.prepare("BEGIN IMMEDIATE"),
    commit: db.prepare("COMMIT"),
    savepoint: db.prepare("SAVEPOINT write"),
    release: db.prepare("RELEASE write"),
    rollbackTo: db.prepare("ROLLBACK TO write"),
    latest: db.prepare(
      "SELECT deleted, create_revision, revision, value FROM kv WHERE name = ? ORDER BY revision DESC LIMIT 1",
    ),
    latestAsOf: db.prepare(
      "SELECT deleted, create_revision, revision, value FROM kv WHERE name = ? AND revision <= ? ORDER BY revision DESC LIMIT 1",
    ),
    insert: db.prepare(
      `INSERT INTO kv (id, name, created, deleted, create_revision, prev_revision, revision, value)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    listBounded: listStatements(true),
    listOpen: listStatements(false),
    historyBounded: history(true),
    historyOpen: history(false),
    // Rows nobody can read any more: superseded at or before the compacted revision, and
    // tombstones at or before it (the key is absent at every readable revision).
    compact: db.prepare(`
      DELETE FROM kv WHERE revision <= @rev AND (deleted = 1 OR EXISTS (
        SELECT 1 FROM kv AS newer WHERE newer.name = kv.name AND newer.revision > kv.revision AND newer.revision <= @rev
      ))`),
    sequence: db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'kv'"),
    maxRevision: db.prepare("SELECT MAX(revision) AS r FROM kv"),
    getMeta: db.prepare("SELECT value FROM meta WHERE key = ?"),
    setMeta: db.prepare(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ),
  };
}

function historyEvent(row: HistoryRow): WatchEvent {
  const current = kv(row.name, row.value, row.create_revision, row.revision);
  if (row.deleted !== 0) {
    return {
      type: "delete",
      kv: current,
      prevKv: kv(row.name, row.value, row.create_revision, row.prev_revision),
      revision: row.revision,
    };
  }
  if (row.created !== 0 || row.prev_value === null) return { type: "put", kv: current, revision: row.revision };
  const prevKv = kv(row.name, row.prev_value, row.prev_create_revision ?? row.create_revision, row.prev_revision);
  return { type: "put", kv: current, prevKv, revision: row.revision };
}

/** The events of a commit's successful writes, in revision order (one write's own array when it is alone). */
function committedEvents(outcomes: readonly Outcome[]): readonly WatchEvent[] {
  let events: readonly WatchEvent[] = [];
  let owned: WatchEvent[] | undefined;
  for (const outcome of outcomes) {
    if (!outcome.ok || outcome.applied.events.length === 0) continue;
    if (events.length === 0) events = outcome.applied.events;
    else {
      owned ??= [...events];
      owned.push(...outcome.applied.events);
      events = owned;
    }
  }
  return events;
}

function kv(key: string, value: Buffer, createRevision: number, modRevision: number): KeyValue {
  return newKeyValue(key, value, createRevision, modRevision);
}

function conflict(key: string, expected: number, actual: number): StorageError {
  return new StorageError("Conflict", key, `Conflict: ${key}: expected revision ${expected}, found ${actual}`);
}

function unavailable(message: string): StorageError {
  return new StorageError("Unavailable", "", message);
}
