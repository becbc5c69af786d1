import { AdmissionChain } from "../registry/admission.js";
import { Registry } from "../registry/registry.js";
import type { ResourceType } from "../registry/resource-type.js";
import { StorageError } from "../storage/errors.js";
import type { Storage } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { storageWith } from "./storage-with.js";

/**
 * A Registry of the given kinds over a real SQLite `:memory:` database whose storage can be told
 * to fail its next updates (as an unavailable backend does): for tests of the controllers'
 * retries.
 */
export function flakyRegistry(kinds: readonly ResourceType[]): {
  registry: Registry;
  failNextUpdates(n: number): void;
  close(): Promise<void>;
} {
  const sqlite = openSqliteStorage(":memory:");
  let failures = 0;
  const storage = storageWith(sqlite, {
    update: (...args: Parameters<Storage["update"]>) => {
      if (failures > 0) {
        failures--;
        return Promise.reject(new StorageError("Unavailable", args[0], "storage unavailable (test)"));
      }
      return sqlite.update(...args);
    },
  });
  return {
    registry: new Registry(storage, kinds, new AdmissionChain([])),
    failNextUpdates: (n) => {
      failures = n;
    },
    close: () => sqlite.close(),
  };
}
