import { join } from "node:path";
import type { Logger } from "pino";
import { assertNoRestoreInProgress } from "../backup/restore.js";
import { replicaInfo } from "../metrics/metrics.js";
import { attachOperations } from "../metrics/server-hooks.js";
import { registryPartition } from "../registry/keys.js";
import { workerNumber } from "../server/worker-number.js";
import { CachedStorage } from "../storage/cache/cached-storage.js";
import { openStorageBackend } from "../storage/factory.js";
import type { ServerConfig } from "./config.js";

/**
 * The store the server runs on: the backend the config names (the embedded SQLite database in the
 * data dir by default), refused while a restore is half done, counted by the metrics, and served
 * to every read and watch through the watch cache (src/storage/cache).
 */
export async function openServerStorage(config: ServerConfig, dataDir: string, log: Pick<Logger, "warn">) {
  const backend = await openStorageBackend(
    config.storage ?? `sqlite:${join(dataDir, "platform.db")}`,
    config.leaderElection,
    (message) => log.warn(message),
  );
  await assertNoRestoreInProgress(backend.storage);
  const ops = attachOperations(config, backend.storage, backend.kind);
  if (config.metrics !== false) {
    const worker = workerNumber();
    replicaInfo.set({ identity: backend.elector.identity, ...(worker ? { worker: String(worker) } : {}) }, 1);
  }
  const storage = new CachedStorage(ops.storage, { partition: registryPartition });
  return { backend, ops, storage };
}
