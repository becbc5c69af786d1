/**
 * KEP-3926's unsafe deletion: a DELETE whose options set
 * `ignoreStoreReadErrorWithClusterBreakingPotential` removes an object whose stored value does
 * not decode, without decoding it. Nothing that needs the object runs: no preconditions (refused
 * with the option, server/unsafe-delete-option.ts), no finalizers or deletion timestamp, no
 * validating admission (none of this server's plugins acts on a DELETE), no owner-reference
 * propagation (the garbage collector finds dependents whose owner is gone, as for any owner
 * removed). The caller holds `unsafe-delete-ignore-read-errors` on the resource besides
 * `delete` (server/unsafe-delete.ts asks).
 */
import { errors, fieldError } from "../api/errors.js";
import { isStorageError } from "../storage/errors.js";
import type { Store } from "./store.js";
import { undecodableReason } from "./undecodable.js";

/** The DeleteOptions field (and query parameter). */
export const IGNORE_STORE_READ_ERROR = "ignoreStoreReadErrorWithClusterBreakingPotential";

/** Tries at removing the value read: a write in between makes the next try read and check it again. */
const ATTEMPTS = 4;

/**
 * Removes the corrupt object `name`: 404 when there is none, 422 when its value decodes (the
 * option is for corrupt objects only, kube's wording), else the value read is deleted on the
 * condition that it is still the one stored. Returns the revision of the deletion.
 */
export async function deleteCorruptObject(store: Store, namespace: string | undefined, name: string): Promise<number> {
  const key = store.key(namespace, name);
  for (let attempt = 1; ; attempt++) {
    const kv = await store.storage.get(key);
    if (!kv) throw errors.notFound(store.gr, name);
    if (undecodableReason(kv, (v) => store.decodeForWatch(v)) === undefined) throw readable(store, name);
    try {
      return (await store.storage.delete(key, kv.modRevision)).revision;
    } catch (err) {
      // Written or removed since it was read: read it again (and check it again).
      if ((isStorageError(err, "Conflict") || isStorageError(err, "NotFound")) && attempt < ATTEMPTS) continue;
      throw store.storageToApi(err, name);
    }
  }
}

function readable(store: Store, name: string) {
  return errors.invalid(store.gr.resource, store.gr.group, name, [
    fieldError(
      "FieldValueInvalid",
      IGNORE_STORE_READ_ERROR,
      "is exclusively used to delete corrupt object(s), try again by removing this option",
      true,
    ),
  ]);
}
