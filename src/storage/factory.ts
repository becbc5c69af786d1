/**
 * Picks a storage backend from a URL, as given to `--storage`:
 * - `sqlite:PATH`, `sqlite://PATH` or a bare path: the embedded SQLite store
 *   (`sqlite::memory:` for a throwaway in-memory store);
 * - `etcd://host:2379[,host:2379...][?cacert=&cert=&key=&user=&password-file=]` (or `etcds://`):
 *   the etcd store, see etcd/etcd-url.ts and docs/deployment.md.
 */

import type { EtcdStorage } from "./etcd/etcd-storage.js";
import { parseEtcdUrl } from "./etcd/etcd-url.js";
import type { Storage } from "./interface.js";
import {
  type EtcdElectorOptions,
  EtcdLeaderElector,
  type LeaderElector,
  SingleReplicaElector,
} from "./leader-election.js";
import { openSqliteStorage } from "./sqlite/sqlite-storage.js";

/**
 * Automatic compaction runs for every store opened here (every minute, keeping at least
 * 10,000 revisions and 5 minutes of history), so a long-running server's log stays bounded.
 */
const AUTO_COMPACT_INTERVAL_MS = 60_000;

/**
 * `exclusive`: the opener owns a SQLite store while it is open (sqlite/store-lock.ts), so a
 * second server or an offline admin command on the same database is refused.
 */
export async function openStorage(url: string, options: { exclusive?: boolean } = {}): Promise<Storage> {
  const scheme = schemeOf(url);
  if (scheme === "etcd" || scheme === "etcds") return openEtcd(url);
  // A one-letter "scheme" is a Windows drive (C:\data\db.sqlite), i.e. a bare path.
  if (scheme !== undefined && scheme !== "sqlite") {
    throw new Error(`unknown storage URL scheme "${scheme}:" in ${url} (expected sqlite: or etcd://)`);
  }
  const path = scheme === "sqlite" ? url.slice("sqlite:".length).replace(/^\/\//, "") : url;
  if (path === "") throw new Error(`no database path in storage URL ${url}`);
  return openSqliteStorage(path, { compactIntervalMs: AUTO_COMPACT_INTERVAL_MS, exclusive: options.exclusive });
}

function schemeOf(url: string): string | undefined {
  return /^([a-z][a-z0-9+.-]+):/i.exec(url)?.[1]?.toLowerCase();
}

/**
 * The etcd client is loaded only for an etcd URL: it is a large part of the server's modules
 * and a SQLite server never needs it. History compaction is etcd's own job there
 * (--auto-compaction-retention), shared by all replicas.
 */
async function openEtcd(url: string, onWarning?: (message: string) => void): Promise<EtcdStorage> {
  const { EtcdStorage } = await import("./etcd/etcd-storage.js");
  return new EtcdStorage({ ...parseEtcdUrl(url), onWarning });
}

/** A backend and how replicas sharing it elect the one that runs the controllers. */
export interface StorageBackend {
  storage: Storage;
  elector: LeaderElector;
  /** Which backend: health checks are named after it (etcd, as kube-apiserver does). */
  kind: "etcd" | "sqlite";
}

/**
 * openStorage, with the leader elector that fits the backend: several replicas may share one
 * etcd (an election over an etcd lease, on the backend's own client); a SQLite file has one.
 */
export async function openStorageBackend(
  url: string,
  leaderElection: Pick<EtcdElectorOptions, "ttlSeconds" | "retryMs"> = {},
  /** Where the backend's warnings for the operator go (the server's log). */
  onWarning?: (message: string) => void,
): Promise<StorageBackend> {
  const scheme = schemeOf(url);
  if (scheme === "etcd" || scheme === "etcds") {
    const storage = await openEtcd(url, onWarning);
    return { storage, elector: new EtcdLeaderElector(storage.kv, leaderElection), kind: "etcd" };
  }
  // A SQLite file belongs to one server process at a time.
  const storage = await openStorage(url, { exclusive: true });
  return { storage, elector: new SingleReplicaElector(), kind: "sqlite" };
}
