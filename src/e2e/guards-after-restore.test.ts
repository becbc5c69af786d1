/**
 * Write guards after a restore, on two server replicas sharing the restored etcd. A backup
 * carries no guard keys (src/backup/backup-stream.ts copies the objects' prefixes only), so a
 * restored store holds spaces that hold namespaces, and projects that hold instances, with no
 * guard key for either (docs/spaces.md, "One namespace, one holder"; "Project quotas"). Neither
 * check needs one: the holders and the instances are read from storage, and a claim that finds
 * no guard writes it with a create, which only one of two racing claims can commit
 * (src/admission/namespace-claims.ts, src/admission/project-quotas.ts).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { writeBackupFile } from "../backup/backup-file.js";
import { restoreBackup } from "../backup/restore.js";
import { fetchBackupLines } from "../cli/fetch-backup.js";
import { claimId, NAMESPACE_CLAIM_GUARDS } from "../kinds/held-namespaces.js";
import { PROJECT_QUOTA_GUARDS } from "../kinds/project/project-quotas.js";
import { KEPT_KEYS_PREFIX } from "../registry/kept-keys.js";
import { openStorage } from "../storage/factory.js";
import type { Storage } from "../storage/interface.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { postObject } from "../testing/gateway-fixture.js";
import { raceMoveAgainstSameNameCreate, spaceOnC1 } from "../testing/space-claim-race.js";
import {
  GROUP_PATH,
  startReplica,
  startTestServer,
  type TestResponse,
  type TestServer,
} from "../testing/test-server.js";

const BOOTSTRAP_KEY = "guards-after-restore-admin-key-0123456789";
const API = "management.platform/v1";
const ROUNDS = 4;
const RACERS = 8;
const QUOTA = 4;
/** Instances the quota project holds in the backup: the race is for the slots left. */
const RESTORED_INSTANCES = 2;

describe("write guards after a restore, on two replicas", { timeout: 180_000 }, () => {
  let etcd: EtcdCluster;
  let dir: string;
  let replicas: TestServer[] = [];
  /** The guard keys of the store backed up, and of the restored one before any replica started on it. */
  let sourceGuards: string[] = [];
  let restoredGuards: string[] = [];
  const guardKeys = async (storage: Pick<Storage, "list">) => {
    const prefixes = [NAMESPACE_CLAIM_GUARDS, PROJECT_QUOTA_GUARDS].map((name) => `${KEPT_KEYS_PREFIX}${name}/`);
    const lists = await Promise.all(prefixes.map((prefix) => storage.list(prefix)));
    return lists.flatMap((l) => l.items.map((kv) => kv.key)).sort();
  };
  const instance = (name: string) => ({
    apiVersion: API,
    kind: "VirtualClusterInstance",
    metadata: { name },
    spec: { clusterRef: { cluster: "c1" } },
  });
  const detail = (results: TestResponse[]) => results.map((r) => `${r.status} ${r.text}`).join("\n");

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "platform-guards-restore-"));
    const file = join(dir, "claims.backup.gz");
    etcd = await EtcdCluster.start(1);
    const source = await startTestServer({ bootstrapKey: BOOTSTRAP_KEY });
    try {
      await postObject(source, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
      for (const name of ["one", "two"]) {
        await postObject(source, "projects", { metadata: { name }, spec: { allowedClusters: [{ name: "*" }] } });
      }
      for (let round = 0; round < ROUNDS; round++) {
        await postObject(source, "namespaces/p-one/spaceinstances", spaceOnC1(`twin-${round}`));
        await postObject(source, "namespaces/p-one/spaceinstances", spaceOnC1(`held-${round}`, `restored-${round}`));
      }
      await postObject(source, "projects", {
        metadata: { name: "race" },
        spec: { allowedClusters: [{ name: "*" }], quotas: { project: { virtualClusterInstances: QUOTA } } },
      });
      for (let i = 0; i < RESTORED_INSTANCES; i++) {
        await postObject(source, "namespaces/p-race/virtualclusterinstances", instance(`kept-${i}`));
      }
      const conn = { server: source.url, accessKey: source.adminKey, certificateAuthorityData: source.caPem };
      await writeBackupFile(fetchBackupLines(conn), file);
      sourceGuards = await guardKeys(source.storage);
    } finally {
      await source.stop();
    }
    const target = await openStorage(etcd.url);
    try {
      await restoreBackup(file, target);
      restoredGuards = await guardKeys(target);
    } finally {
      await target.close();
    }
    replicas = [await startReplica(etcd.url, BOOTSTRAP_KEY), await startReplica(etcd.url, BOOTSTRAP_KEY)];
    // Each replica must know the projects before a race, or it answers 404 for a reason of its own.
    for (const r of replicas) {
      for (const name of ["one", "two", "race"]) {
        assert.equal((await r.request("GET", `${GROUP_PATH}/projects/${name}`)).status, 200);
      }
    }
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await etcd?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("the store backed up held a guard per claimed namespace and per project with instances; the restored one holds none", () => {
    const claimed = (namespace: string) =>
      `${KEPT_KEYS_PREFIX}${NAMESPACE_CLAIM_GUARDS}/${claimId({ cluster: "c1", namespace })}`;
    assert.ok(sourceGuards.includes(claimed("twin-0")), sourceGuards.join("\n"));
    assert.ok(sourceGuards.includes(claimed("restored-0")), sourceGuards.join("\n"));
    assert.ok(sourceGuards.includes(`${KEPT_KEYS_PREFIX}${PROJECT_QUOTA_GUARDS}/race`), sourceGuards.join("\n"));
    assert.deepEqual(restoredGuards, []);
  });

  test("creates of a restored holder's namespace on both replicas at once: all refused, naming it", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const namespace = `restored-${round}`;
      const results = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          replicas[i % 2]!.request("POST", `${GROUP_PATH}/namespaces/p-two/spaceinstances`, {
            body: spaceOnC1(`claim-${round}-${i}`, namespace),
          }),
        ),
      );
      assert.equal(results.filter((r) => r.status === 409).length, RACERS, detail(results));
      for (const r of results) {
        assert.match(
          r.json.message,
          new RegExp(`"${namespace}" on cluster "c1" already belongs to SpaceInstance p-one/held-${round}`),
        );
      }
    }
  });

  test("a move of a restored holder on one replica and a same-name create in the old project on the other: the moved one keeps the namespace", async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    for (let round = 0; round < ROUNDS; round++) {
      const name = `twin-${round}`;
      // The create does not count the space it would replace as a holder (before the move
      // commits, it is AlreadyExists): only the guard keeps the two from both committing.
      await raceMoveAgainstSameNameCreate(a, b, name);
    }
  });

  test("creates racing for a restored project's last quota slots on both replicas: exactly those win", async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    const results = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        (i % 2 ? a : b).request("POST", `${GROUP_PATH}/namespaces/p-race/virtualclusterinstances`, {
          body: instance(`r${i}`),
        }),
      ),
    );
    const left = QUOTA - RESTORED_INSTANCES;
    assert.equal(results.filter((r) => r.status === 201).length, left, detail(results));
    assert.equal(results.filter((r) => r.status === 403).length, RACERS - left, detail(results));
    const listed = await b.request("GET", `${GROUP_PATH}/namespaces/p-race/virtualclusterinstances`);
    assert.equal(listed.json.items.length, QUOTA);
  });
});
