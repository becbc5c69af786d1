/**
 * `platform backup --to FILE` and `platform restore --from FILE`: see docs/operations.md.
 * A backup is taken from the logged-in server (admin only) or from a stopped store; a restore
 * goes into a stopped, empty store.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
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
      const { runBackup } = await import("./backup-actions.js");
      await runBackup(url, opts.to);
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
      const { runRestore } = await import("./backup-actions.js");
      await runRestore(url, opts);
    });
}
