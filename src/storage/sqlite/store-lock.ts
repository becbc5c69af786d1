/**
 * One process at a time owns a SQLite store: the server, or an offline tool such as
 * `platform admin reset-key`. Owning means holding SQLite's own EXCLUSIVE lock on a small
 * companion database (`<db>.lock`): an operating-system file lock that dies with its process,
 * so a crashed server leaves nothing stale behind and no PID file has to be guessed at.
 * The store itself stays in WAL mode, readable by other processes (backups, inspection).
 */
import Database from "better-sqlite3";

/** Another process (a running server, most likely) owns the store. */
export class StoreInUseError extends Error {
  constructor(readonly dbPath: string) {
    super(
      `${dbPath} is in use by another process (a running platform server, or another platform admin command); stop it first`,
    );
    this.name = "StoreInUseError";
  }
}

export interface StoreLock {
  readonly file: string;
  release(): void;
}

/** The lock file of a database path. */
export function storeLockFile(dbPath: string): string {
  return `${dbPath}.lock`;
}

/** Takes the store's lock at once, or throws StoreInUseError when another process holds it. */
export function acquireStoreLock(dbPath: string): StoreLock {
  const file = storeLockFile(dbPath);
  // timeout 0: never wait for the holder, answer at once.
  const db = new Database(file, { timeout: 0 });
  try {
    // In EXCLUSIVE locking mode the lock a write takes is kept until the connection closes.
    db.pragma("locking_mode = EXCLUSIVE");
    // No journal file beside it: the one row it holds is not worth one.
    db.pragma("journal_mode = MEMORY");
    db.exec("CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY, pid INTEGER, since TEXT)");
    db.prepare("INSERT OR REPLACE INTO holder (id, pid, since) VALUES (1, ?, ?)").run(
      process.pid,
      new Date().toISOString(),
    );
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code?.startsWith("SQLITE_BUSY")) throw new StoreInUseError(dbPath);
    throw err;
  }
  let held = true;
  return {
    file,
    release() {
      if (!held) return;
      held = false;
      db.close();
    },
  };
}
