/**
 * One namespace, one holder on two server replicas sharing one etcd (docs/spaces.md, "One
 * namespace, one holder"): creates claiming one namespace on one cluster, sent to both replicas
 * at once, never make two holders (src/admission/namespace-claims.ts: the namespace's guard is a
 * compare-and-swap in etcd, not a lock in either process); a move on one replica racing a
 * same-name create in the old project on the other always leaves the namespace to the moved one.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { postObject } from "../testing/gateway-fixture.js";
import { raceMoveAgainstSameNameCreate, spaceOnC1 } from "../testing/space-claim-race.js";
import { GROUP_PATH, startReplica, type TestResponse, type TestServer } from "../testing/test-server.js";

const BOOTSTRAP_KEY = "namespace-claim-replicas-admin-key-0123456789";
const ROUNDS = 4;
const RACERS = 8;

describe("namespace claims across replicas on one etcd", { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  let replicas: TestServer[] = [];
  const detail = (results: TestResponse[]) => results.map((r) => `${r.status} ${r.text}`).join("\n");

  before(async () => {
    etcd = await EtcdCluster.start(1);
    replicas = [await startReplica(etcd.url, BOOTSTRAP_KEY), await startReplica(etcd.url, BOOTSTRAP_KEY)];
    const [a] = replicas as [TestServer];
    await postObject(a, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
    for (const name of ["one", "two"]) {
      await postObject(a, "projects", { metadata: { name }, spec: { allowedClusters: [{ name: "*" }] } });
    }
    // Each replica must know the projects before the race, or it answers 404 for a reason of its own.
    for (const r of replicas) {
      for (const name of ["one", "two"]) {
        assert.equal((await r.request("GET", `${GROUP_PATH}/projects/${name}`)).status, 200);
      }
    }
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await etcd?.stop();
  });

  test("creates of one namespace on both replicas at once: exactly one holder", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const namespace = `contested-${round}`;
      const results = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          replicas[i % 2]!.request("POST", `${GROUP_PATH}/namespaces/p-${i % 4 < 2 ? "one" : "two"}/spaceinstances`, {
            body: spaceOnC1(`s${round}-${i}`, namespace),
          }),
        ),
      );
      assert.equal(results.filter((r) => r.status === 201).length, 1, detail(results));
      assert.equal(results.filter((r) => r.status === 409).length, RACERS - 1, detail(results));
      for (const r of results.filter((r) => r.status === 409)) {
        assert.match(
          r.json.message,
          new RegExp(
            `namespace "${namespace}" on cluster "c1" already belongs to SpaceInstance p-(one|two)/s${round}-\\d`,
          ),
        );
      }
      const holders = await Promise.all(
        ["one", "two"].map((p) => replicas[1]!.request("GET", `${GROUP_PATH}/namespaces/p-${p}/spaceinstances`)),
      );
      const held = holders.flatMap((l) => l.json.items).filter((s) => s.spec.clusterRef.namespace === namespace);
      assert.equal(held.length, 1);
    }
  });

  test("a move on one replica and a same-name create in the old project on the other: the moved one keeps the namespace", async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    for (let round = 0; round < ROUNDS; round++) {
      const name = `twin-${round}`;
      await postObject(a, "namespaces/p-one/spaceinstances", spaceOnC1(name));
      await raceMoveAgainstSameNameCreate(a, b, name);
    }
  });
});
