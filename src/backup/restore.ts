/**
 * Restores a backup file into an empty store. The file is checked whole before anything is
 * written. A marker key holds the file's checksum while the restore runs: a restore that stopped
 * halfway (a crash) is started over by running the same restore again, a different one is
 * refused (unless --force), and a server refuses to start on a store with the marker.
 */
import type { Storage, TxnOp } from "../storage/interface.js";
import { backupRecords, verifyBackupFile } from "./backup-file.js";
import { BACKUP_PREFIXES, type BackupHeader, recordValue } from "./backup-stream.js";

/** Present only while a restore is writing; outside every prefix the server reads. */
export const RESTORE_MARKER = "/platform-restore/in-progress";
const BATCH = 100;

export interface RestoreOptions {
  /** Replace whatever the target holds. */
  force?: boolean;
  progress?: (objects: number, total: number) => void;
}

export interface RestoreResult {
  header: BackupHeader;
  /** The encryption keys the restored secret data needs. */
  encryptionKeyIds: string[];
  objects: number;
  /** True when an interrupted restore of the same file was found and started over. */
  resumed: boolean;
}

export class RestoreRefused extends Error {}

export async function restoreBackup(
  path: string,
  target: Storage,
  options: RestoreOptions = {},
): Promise<RestoreResult> {
  const { header, end } = await verifyBackupFile(path);
  const marker = await target.get(RESTORE_MARKER);
  const resumed = marker?.value.toString("utf8") === end.sha256;
  const present = await countKeys(target);
  if (marker && !resumed && !options.force) {
    throw new RestoreRefused(
      "the target store holds an interrupted restore of a different backup; run that restore again, or pass --force to replace it",
    );
  }
  if (present > 0 && !resumed && !options.force) {
    throw new RestoreRefused(
      `the target store is not empty (it holds ${present} or more keys); restore only into an empty store, or pass --force to replace its contents`,
    );
  }
  if (marker) await target.delete(RESTORE_MARKER);
  await target.create(RESTORE_MARKER, Buffer.from(end.sha256, "utf8"));
  await wipe(target);
  let objects = 0;
  let ops: TxnOp[] = [];
  const flush = async () => {
    if (ops.length === 0) return;
    await target.txn(ops);
    objects += ops.length;
    ops = [];
    options.progress?.(objects, end.objects);
  };
  for await (const record of backupRecords(path)) {
    ops.push({ type: "create", key: record.key, value: recordValue(record) });
    if (ops.length === BATCH) await flush();
  }
  await flush();
  await target.delete(RESTORE_MARKER);
  return { header, encryptionKeyIds: end.encryptionKeyIds ?? [], objects, resumed };
}

/** Refuses to serve a store a restore is still writing. */
export async function assertNoRestoreInProgress(storage: Storage): Promise<void> {
  if (await storage.get(RESTORE_MARKER)) {
    throw new Error(
      "the store holds an unfinished restore (platform restore stopped halfway); run the same platform restore again before starting the server",
    );
  }
}

async function countKeys(storage: Storage): Promise<number> {
  let n = 0;
  for (const prefix of BACKUP_PREFIXES) n += (await storage.list(prefix, { limit: 1 })).items.length;
  return n;
}

async function wipe(storage: Storage): Promise<void> {
  for (const prefix of BACKUP_PREFIXES) {
    for (;;) {
      const page = await storage.list(prefix, { limit: BATCH });
      if (page.items.length === 0) break;
      await storage.txn(page.items.map((kv) => ({ type: "delete", key: kv.key })));
    }
  }
}
