import { openSqliteStorage } from "../../storage/sqlite/sqlite-storage.js";
import { runStorageSuite } from "../../storage/storage-suite.js";
import { CachedStorage, partitionBySegments } from "./cached-storage.js";

// The cache must be indistinguishable from the storage it fronts: the shared storage suite
// runs against it, with one cache partition per test prefix (/storage-suite/<uuid>/).
runStorageSuite("watch cache over sqlite (:memory:)", async () => ({
  storage: new CachedStorage(openSqliteStorage(":memory:"), {
    partition: partitionBySegments("/storage-suite/", 1),
    ringSize: 16,
  }),
  cleanup: async () => {},
}));
