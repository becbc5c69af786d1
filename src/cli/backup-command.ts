/**
 * `platform backup --to FILE` and `platform restore --from FILE`: see docs/operations.md.
 * A backup is taken from the logged-in server (admin only) or from a stopped store; a restore
 * goes into a stopped, empty store.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { BackupFileError, writeBackupFile } from "../backup/backup-file.js";
import { backupLines } from "../backup/backup-stream.js";
import { fetchBackupLines } from "../backup/fetch-backup.js";
import { RestoreRefused, restoreBackup } from "../backup/restore.js";
import { ENCRYPTION_KEY_FILE_NAME } from "../crypto/secret-box.js";
import { openStorage } from "../storage/factory.js";
import { requireLogin } from "./config.js";
import { CliError } from "./errors.js";

interface StoreOpts {
  dataDir?: string;
  storage?: string;
}

/** The store named by --storage, or the data dir's SQLite file; undefined when neither was given. */
function storeUrl(opts: StoreOpts): string | undefined {
  if (opts.storage && opts.dataDir) throw new CliError("give --data-dir or --storage, not both", 2);
  if (opts.storage) return opts.storage;
  if (opts.dataDir) return `sqlite:${join(resolve(opts.dataDir), "platform.db")}`;
  return undefined;
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

export function registerBackupCommands(program: Command): void {
  program
    .command("backup")
    .description(
      "Write a consistent, compressed backup of every object (from the logged-in server, or a stopped store)",
    )
    .requiredOption("--to <file>", "the backup file to write (gzip)")
    .option("--data-dir <dir>", "read a stopped server's data dir instead of the logged-in server")
    .option("--storage <url>", "read a stopped store instead: sqlite:PATH or etcd://host:2379")
    .addHelpText(
      "after",
      `
Examples:
  platform backup --to platform-$(date +%F).backup.gz
  platform backup --data-dir /var/lib/platform --to /backups/platform.backup.gz`,
    )
    .action(async (opts: StoreOpts & { to: string }) => {
      const url = storeUrl(opts);
      const progress = progressLine("backed up");
      const run = async (lines: AsyncIterable<string>) => {
        const { header, end } = await writeBackupFile(lines, opts.to, progress).catch(refuse);
        process.stdout.write(
          `wrote ${end.objects} objects at revision ${header.revision} to ${opts.to}\n` +
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
    });

  program
    .command("restore")
    .description("Restore a backup file into an empty store (stop the server first)")
    .requiredOption("--from <file>", "the backup file")
    .option("--data-dir <dir>", "restore into this data dir's SQLite store")
    .option("--storage <url>", "restore into this store: sqlite:PATH or etcd://host:2379")
    .option("--force", "replace what the target store holds")
    .addHelpText(
      "after",
      `
Examples:
  platform restore --from platform.backup.gz --data-dir /var/lib/platform
  platform restore --from platform.backup.gz --storage etcd://10.0.0.1:2379`,
    )
    .action(async (opts: StoreOpts & { from: string; force?: boolean }) => {
      const url = storeUrl(opts);
      if (!url) throw new CliError("give the store to restore into: --data-dir DIR or --storage URL", 2);
      if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
      const store = await openStorage(url);
      try {
        const result = await restoreBackup(opts.from, store, {
          force: opts.force,
          progress: progressLine("restored"),
        }).catch(refuse);
        process.stdout.write(
          `${result.resumed ? "restarted an interrupted restore: " : ""}restored ${result.objects} objects (backup revision ${result.header.revision}, taken ${result.header.createdAt}) into ${described(url)}\n`,
        );
        const missing = missingKeys(opts.dataDir, result.encryptionKeyIds);
        if (missing.length)
          process.stdout.write(
            `the server needs encryption key(s) ${missing.join(", ")} to read secret data: put the key file holding them at ${join(opts.dataDir ?? ".", ENCRYPTION_KEY_FILE_NAME)} (or pass --encryption-key-file to platform start)\n`,
          );
      } finally {
        await store.close();
      }
    });
}

function refuse(err: unknown): never {
  if (err instanceof BackupFileError || err instanceof RestoreRefused) throw new CliError(err.message);
  throw err;
}

/** Key names the backup needs that the data dir's key file does not hold (all of them without one). */
function missingKeys(dataDir: string | undefined, needed: string[]): string[] {
  if (!dataDir) return [];
  const file = join(dataDir, ENCRYPTION_KEY_FILE_NAME);
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
