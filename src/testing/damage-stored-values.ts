import { join } from "node:path";
import Database from "better-sqlite3";

/**
 * Behind the server's back, as damage below the API would: in the SQLite file of a stopped
 * server's data dir, the latest stored version of each key (`teams/x`,
 * `sharedsecrets/platform/db`: below `/registry/management.platform/`) gets `value`, bytes no
 * server wrote. Throws when a key has no stored version.
 */
export function damageStoredValues(dataDir: string, values: ReadonlyArray<readonly [string, string]>): void {
  const db = new Database(join(dataDir, "platform.db"));
  try {
    const damage = db.prepare("UPDATE kv SET value = ? WHERE id = (SELECT max(id) FROM kv WHERE name = ?)");
    for (const [path, value] of values) {
      const changes = damage.run(Buffer.from(value), `/registry/management.platform/${path}`).changes;
      if (changes !== 1) throw new Error(`no stored value at ${path}`);
    }
  } finally {
    db.close();
  }
}

/**
 * Behind the server's back, as an older version of the platform would have left it: in the
 * SQLite file of a stopped server's data dir, the latest stored version of the object at `path`
 * (`virtualclusterinstances/p-web/dev`, below `/registry/management.platform/`) is replaced by
 * what `change` makes of it (stored JSON, objects being unencrypted). Throws when it has none.
 */
export function rewriteStoredObject(
  dataDir: string,
  path: string,
  change: (stored: Record<string, unknown>) => Record<string, unknown>,
): void {
  const db = new Database(join(dataDir, "platform.db"));
  try {
    const key = `/registry/management.platform/${path}`;
    const row = db.prepare("SELECT id, value FROM kv WHERE id = (SELECT max(id) FROM kv WHERE name = ?)").get(key) as
      | { id: number; value: Buffer }
      | undefined;
    if (!row) throw new Error(`no stored value at ${path}`);
    const next = change(JSON.parse(row.value.toString("utf8")));
    db.prepare("UPDATE kv SET value = ? WHERE id = ?").run(Buffer.from(JSON.stringify(next)), row.id);
  } finally {
    db.close();
  }
}
