/**
 * What the benchmark (`bench/`, outside the shipped product) uses of the product, in one place.
 *
 * The bench is compiled on its own (bench/tsconfig.json) and imports only this module, as
 * `dist/testing/bench-entry.js`: a module moved or renamed inside src/ then breaks this file's
 * build, next to the product, rather than the bench's. Add here what a new bench phase needs.
 */
export { startServer } from "../app/start-server.js";
export { writeBackupFile } from "../backup/backup-file.js";
export { backupLines, keysAt } from "../backup/backup-stream.js";
export { restoreBackup } from "../backup/restore.js";
export { migrateStorage } from "../cli/migrate-storage-command.js";
export { SESSION_COOKIE } from "../console/sessions.js";
export { loadOrCreateServerTls } from "../crypto/certificates.js";
export { TLS_PREFERENCES } from "../crypto/tls-preferences.js";
export type { CachedStorage } from "../storage/cache/cached-storage.js";
export { EtcdClient, encodeWatchCreate, WatchResponseDecoder } from "../storage/etcd/client/index.js";
export { openStorage } from "../storage/factory.js";
export { EtcdCluster } from "./etcd-cluster.js";
export { FakeClusterApiServer } from "./fake-cluster-apiserver.js";
export { moduleLoadLogArgs } from "./module-load-log.js";

/**
 * The Chromium helpers of the console phase, loaded when called: they bring playwright-core, which
 * no other phase, and none of the children every phase forks from the bench's script, needs.
 */
export const browserHelpers = () => import("./browser.js");
