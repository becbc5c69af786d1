/**
 * Errors a storage backend raises. The registry turns them into API errors
 * (KeyExists → 409 AlreadyExists, NotFound → 404, Conflict → 409 Conflict,
 * Compacted → 410 Expired); nothing below the registry speaks HTTP.
 */
export type StorageErrorCode = "KeyExists" | "NotFound" | "Conflict" | "Compacted" | "Unavailable";

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message?: string,
  ) {
    super(message ?? `${code}: ${key}`);
    this.name = "StorageError";
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}
