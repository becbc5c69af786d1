import { after } from "node:test";
import { EtcdCluster } from "../../testing/etcd-cluster.js";
import { runStorageSuite } from "../../testing/storage-suite.js";
import { openStorage } from "../factory.js";
import { openSqliteStorage } from "../sqlite/sqlite-storage.js";
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

// And over etcd, whose progress notifications (not in-process commits) move the cache forward.
let etcd: Promise<EtcdCluster> | undefined;
after(async () => {
  if (etcd) await (await etcd).stop();
});
runStorageSuite("watch cache over etcd (1 member)", async () => {
  etcd ??= EtcdCluster.start(1);
  const inner = await openStorage((await etcd).url);
  return {
    storage: new CachedStorage(inner, { partition: partitionBySegments("/storage-suite/", 1), ringSize: 16 }),
    cleanup: async () => {},
  };
});
