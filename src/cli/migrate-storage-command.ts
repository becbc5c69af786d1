/**
 * `platform migrate-storage --from sqlite:PATH --to etcd://...`: copies every key of one store
 * into another, values unchanged (so names, uids, contents and encrypted secret data stay as
 * they are; resourceVersions become the target's revisions). The target must hold no objects
 * yet, and the server must be stopped while the copy runs (it reads one consistent snapshot).
 */
import type { Command } from "commander";
import type { Storage, TxnOp } from "../storage/interface.js";

/** Keys read per page, and created per transaction (etcd allows 128 operations per txn by default). */
const PAGE = 500;
const BATCH = 100;

export interface MigrateResult {
  readonly keys: number;
  /** The source revision the copy was read at. */
  readonly sourceRevision: number;
}

export async function migrateStorage(
  from: Storage,
  to: Storage,
  log: (line: string) => void = () => {},
): Promise<MigrateResult> {
  // Loaded here, not at start: every CLI command would load it otherwise.
  const { REGISTRY_PREFIX } = await import("../registry/keys.js");
  if ((await to.list(REGISTRY_PREFIX, { limit: 1 })).items.length > 0) {
    throw new Error("the target store already holds objects; migrate only into an empty store");
  }
  const revision = await from.currentRevision();
  let after: string | undefined;
  let keys = 0;
  for (;;) {
    const page = await from.list(REGISTRY_PREFIX, {
      revision,
      limit: PAGE,
      countRemaining: false,
      ...(after !== undefined ? { after } : {}),
    });
    for (let i = 0; i < page.items.length; i += BATCH) {
      const ops: TxnOp[] = page.items
        .slice(i, i + BATCH)
        .map((kv) => ({ type: "create", key: kv.key, value: kv.value }));
      await to.txn(ops);
      keys += ops.length;
    }
    if (page.items.length > 0) log(`copied ${keys} keys`);
    if (!page.more || page.items.length === 0) break;
    after = page.items[page.items.length - 1]!.key;
  }
  return { keys, sourceRevision: revision };
}

export function registerMigrateStorageCommand(program: Command): void {
  program
    .command("migrate-storage")
    .description("Copy every object from one store to another (e.g. the embedded SQLite store to etcd)")
    .requiredOption("--from <url>", "source store: sqlite:PATH (stop the server first)")
    .requiredOption("--to <url>", "target store: etcd://host:2379[,host:2379...][?cacert=...] (must be empty)")
    .addHelpText(
      "after",
      `
Example:
  platform migrate-storage --from sqlite:/var/lib/platform/platform.db --to etcd://10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379`,
    )
    .action(async (opts: { from: string; to: string }) => {
      // Loaded only here, so the other commands start without the storage drivers.
      const { openStorage } = await import("../storage/factory.js");
      // Both stores owned while copying: a server running on either is refused.
      const from = await openStorage(opts.from, { exclusive: true });
      try {
        const to = await openStorage(opts.to, { exclusive: true });
        try {
          const result = await migrateStorage(from, to, (line) => process.stderr.write(`${line}\n`));
          process.stdout.write(
            `copied ${result.keys} objects from ${opts.from} (revision ${result.sourceRevision}) to ${opts.to}\n`,
          );
        } finally {
          await to.close();
        }
      } finally {
        await from.close();
      }
    });
}
