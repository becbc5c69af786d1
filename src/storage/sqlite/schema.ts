/**
 * The SQLite schema: a kine-style append-only log of key versions plus a small meta table.
 *
 * Every write appends one row to `kv`. The current state of a key is its latest row; a deletion
 * is a tombstone row (`deleted = 1`) that carries the value the key had just before, so that
 * a watch replayed from history can still report the deleted object.
 *
 * `id` is the row's place in the global log (AUTOINCREMENT, so ids are never reused even when
 * compaction deletes the newest rows). `revision` is the revision the row became visible at:
 * equal to `id` for single writes; for a multi-key transaction every row of the transaction gets
 * the id of its last row, so the transaction is atomic at one revision, as the Storage interface
 * (and etcd) require. `create_revision` and `prev_revision` are revisions, not ids.
 */
import type Database from "better-sqlite3";

const SCHEMA_VERSION = 1;

const DDL = `
CREATE TABLE IF NOT EXISTS kv (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  value BLOB NOT NULL
);
-- Optimistic locking: two writers that both read revision N of a key cannot both append after it.
CREATE UNIQUE INDEX IF NOT EXISTS kv_name_prev_revision ON kv (name, prev_revision);
-- Latest row per name (at or before a revision), and the previous version of a row.
CREATE UNIQUE INDEX IF NOT EXISTS kv_name_revision ON kv (name, revision);
-- Tailing the log from a revision (watch replay, compaction).
CREATE INDEX IF NOT EXISTS kv_revision ON kv (revision);
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
`;

/** Columns of one `kv` row as better-sqlite3 returns them. */
export interface KvRow {
  readonly id: number;
  readonly name: string;
  readonly created: number;
  readonly deleted: number;
  readonly create_revision: number;
  readonly prev_revision: number;
  readonly revision: number;
  readonly value: Buffer;
}

export function applyPragmas(db: Database.Database): void {
  // WAL lets readers proceed while a batch commits. synchronous=FULL is only the setting a
  // connection starts with: a file-backed store switches to NORMAL and fsyncs the WAL itself,
  // off the event loop, before a write is acknowledged (durable-wal.ts).
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 5000");
}

export function migrate(db: Database.Database): void {
  db.exec(DDL);
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: number } | undefined;
  if (row === undefined) {
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(SCHEMA_VERSION);
  } else if (row.value !== SCHEMA_VERSION) {
    throw new Error(`unsupported storage schema version ${row.value} (this build reads ${SCHEMA_VERSION})`);
  }
}
