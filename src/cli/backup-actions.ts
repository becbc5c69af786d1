/**
 * The work of `platform backup` and `platform restore` (backup-command.ts registers them), in a
 * module of its own so that the other commands start without the backup and storage modules.
 * Those load when a backup or restore runs (serverParts): the CLI bundle holds no server module
 * (scripts/bundle-cli.js), so this module imports them with import(), not statically.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { requireLogin } from "./config.js";
import { CliError } from "./errors.js";
import { fetchBackupLines } from "./fetch-backup.js";

/** The server's backup, restore and storage modules. */
async function serverParts() {
  const [file, stream, restore, secretBox, storage] = await Promise.all([
    import("../backup/backup-file.js"),
    import("../backup/backup-stream.js"),
    import("../backup/restore.js"),
    import("../crypto/secret-box.js"),
    import("../storage/factory.js"),
  ]);
  /** A refusal of the backup file or of the restore is the user's to fix: a CliError, no stack. */
  const refuse = (err: unknown): never => {
    if (err instanceof file.BackupFileError || err instanceof restore.RestoreRefused) throw new CliError(err.message);
    throw err;
  };
  return { ...file, ...stream, ...restore, ...secretBox, ...storage, refuse };
}

/** The URL without credentials, for the backup's header. */
function described(url: string): string {
  return url.replace(/\?.*$/, "").replace(/\/\/[^@/]*@/, "//");
}

/** Progress on stderr, at most one line per 5,000 objects (and the last). */
const progressLine = (verb: string) => {
  let shown = 0;
  return (n: number, total?: number) => {
    if (n - shown < 5000 && n !== total) return;
    shown = n;
    process.stderr.write(`${verb} ${n}${total !== undefined ? ` of ${total}` : ""} objects\n`);
  };
};

/** `platform backup`: from the store at `url`, or from the logged-in server when there is none. */
export async function runBackup(url: string | undefined, to: string): Promise<void> {
  const { writeBackupFile, refuse, openStorage, backupLines } = await serverParts();
  const progress = progressLine("backed up");
  const run = async (lines: AsyncIterable<string>) => {
    const { header, end } = await writeBackupFile(lines, to, progress).catch(refuse);
    process.stdout.write(
      `wrote ${end.objects} objects at revision ${header.revision} to ${to}\n` +
        (end.encryptionKeyIds.length
          ? `secret data is encrypted with key(s) ${end.encryptionKeyIds.join(", ")}: keep the encryption key file safe, apart from the backup\n`
          : ""),
    );
  };
  if (!url) return run(fetchBackupLines(requireLogin()));
  const store = await openStorage(url);
  try {
    await run(backupLines(store, described(url)));
  } finally {
    await store.close();
  }
}

/** `platform restore` into the store at `url`. */
export async function runRestore(
  url: string,
  opts: { from: string; force?: boolean; dataDir?: string },
): Promise<void> {
  const { openStorage, restoreBackup, refuse, ENCRYPTION_KEY_FILE_NAME } = await serverParts();
  // Owned while restoring: a running server on this store is refused (storage/sqlite/store-lock.ts).
  const store = await openStorage(url, { exclusive: true });
  try {
    const result = await restoreBackup(opts.from, store, {
      force: opts.force,
      progress: progressLine("restored"),
    }).catch(refuse);
    process.stdout.write(
      `${result.resumed ? "restarted an interrupted restore: " : ""}restored ${result.objects} objects (backup revision ${result.header.revision}, taken ${result.header.createdAt}) into ${described(url)}\n`,
    );
    const missing = missingKeys(opts.dataDir, ENCRYPTION_KEY_FILE_NAME, result.encryptionKeyIds);
    if (missing.length)
      process.stdout.write(
        `the server needs encryption key(s) ${missing.join(", ")} to read secret data: put the key file holding them at ${join(opts.dataDir ?? ".", ENCRYPTION_KEY_FILE_NAME)} (or pass --encryption-key-file to platform start)\n`,
      );
  } finally {
    await store.close();
  }
}

/** Key names the backup needs that the data dir's key file does not hold (all of them without one). */
function missingKeys(dataDir: string | undefined, keyFileName: string, needed: string[]): string[] {
  if (!dataDir) return [];
  const file = join(dataDir, keyFileName);
  if (!existsSync(file)) return needed;
  try {
    const names = ((JSON.parse(readFileSync(file, "utf8")) as { keys?: Array<{ name?: string }> }).keys ?? []).map(
      (k) => k.name,
    );
    return needed.filter((n) => !names.includes(n));
  } catch {
    return needed;
  }
}
