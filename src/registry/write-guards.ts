import { isStorageError } from "../storage/errors.js";
import type { TxnOp } from "../storage/interface.js";

/**
 * A storage write an admission plugin adds to a create or an update: it commits in the same
 * transaction as the object, or neither does. A plugin that decided from what it read (a project
 * quota counted from the instances) writes a key at the revision it read, so that two writes that
 * decided from the same reading cannot both commit (Store.create, Store.writeUpdate and the
 * registry's transactions carry them; a delete never does).
 */
export interface WriteGuard {
  /** A `create` (the key did not exist when read) or an `update` at the revision read. */
  readonly op: TxnOp;
}

/**
 * How often a write whose guard changed under it is run again through admission: each conflict
 * means another write committed meanwhile, so every retry sees a newer count; the bound only
 * keeps one request from waiting behind a long burst.
 */
export const GUARDED_CREATE_ATTEMPTS = 20;

/** Whether a transaction failed on one of `guards` (another create committed meanwhile). */
export function failedOnGuard(err: unknown, guards: readonly WriteGuard[]): boolean {
  if (!isStorageError(err)) return false;
  return guards.some((g) => g.op.key === err.key);
}
