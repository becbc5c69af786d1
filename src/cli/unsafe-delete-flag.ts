import type { Command } from "commander";
import type { ApiClient } from "./api-client.js";

/**
 * The CLI's side of KEP-3926's unsafe deletion: `platform delete … --ignore-store-read-error-with-cluster-breaking-potential`
 * sends DeleteOptions `ignoreStoreReadErrorWithClusterBreakingPotential: true`, which removes an
 * object whose stored value the server cannot decode (a damaged value, a secret sealed with a key
 * it no longer holds). kubectl 1.32 has no flag for it; the flag spells out the option, as long
 * and as loud, so that no one types it by chance. The server decides: only the admin role holds
 * the verb `unsafe-delete-ignore-read-errors`, and an object that decodes is refused (422).
 */
export const UNSAFE_DELETE_FLAG = "--ignore-store-read-error-with-cluster-breaking-potential";

export interface UnsafeDeleteOpts {
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

/** Adds the flag to a `delete` subcommand. */
export function addUnsafeDeleteOption(cmd: Command): Command {
  return cmd.option(
    UNSAFE_DELETE_FLAG,
    "remove an object whose stored value cannot be read (corrupt), without reading it: no finalizers, no checks; admin only. Only for an object the server reports as corrupt",
  );
}

/** DELETE `path`, with the unsafe option in a DeleteOptions body when the flag was given. */
export async function deleteWithOptions(client: ApiClient, path: string, opts: UnsafeDeleteOpts): Promise<void> {
  if (!opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
    await client.delete(path);
    return;
  }
  await client.delete(path, {
    body: { kind: "DeleteOptions", apiVersion: "v1", ignoreStoreReadErrorWithClusterBreakingPotential: true },
  });
}

/** What `delete` prints: the unsafe deletion says so, since nothing of the object was checked. */
export function deletedMessage(what: string, opts: UnsafeDeleteOpts): string {
  return opts.ignoreStoreReadErrorWithClusterBreakingPotential
    ? `${what} deleted (unsafe deletion: its stored value was not read)\n`
    : `${what} deleted\n`;
}
