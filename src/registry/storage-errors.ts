import { type ApiError, errors } from "../api/errors.js";
import { isStorageError } from "../storage/errors.js";

/** Storage errors become API errors here, at the registry boundary, and nowhere else. */
export function storageToApi(err: unknown, gr: { group: string; resource: string }, name: string): Error {
  if (!isStorageError(err)) return err as Error;
  switch (err.code) {
    case "KeyExists":
      return errors.alreadyExists(gr, name);
    case "NotFound":
      return errors.notFound(gr, name);
    case "Conflict":
      return errors.staleObject(gr, name);
    case "Compacted":
      return errors.resourceVersionTooOld();
    default:
      return errors.storageUnavailable(err.message);
  }
}

/**
 * A storage outage that reached the HTTP layer unmapped (reads: the cache's sync, a fallback
 * read) as the API error every verb answers with (503); undefined for any other error.
 */
export function storageOutageToApi(err: unknown): ApiError | undefined {
  return isStorageError(err, "Unavailable") ? errors.storageUnavailable(err.message) : undefined;
}
