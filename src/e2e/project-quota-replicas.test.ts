/**
 * Project quotas on two server replicas sharing one etcd: creates and wake-ups racing for the
 * last slots, sent to both replicas at once, never exceed the quota
 * (src/admission/project-quotas.ts: the guard is a compare-and-swap in etcd, not a lock in
 * either process).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startReplica, type TestServer } from "../testing/test-server.js";

const BOOTSTRAP_KEY = "quota-replicas-admin-key-0123456789abcdefghij";
const QUOTA = 4;
const RACERS = 10;

describe("project quotas across replicas on one etcd", { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  let replicas: TestServer[] = [];
  before(async () => {
    etcd = await EtcdCluster.start(1);
    replicas = [await startReplica(etcd.url, BOOTSTRAP_KEY), await startReplica(etcd.url, BOOTSTRAP_KEY)];
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await etcd?.stop();
  });

  test("creates on both replicas at once: exactly the quota's number win", async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    await postObject(a, "clusters", { metadata: { name: "c1" }, spec: { local: true } });
    await postObject(a, "projects", {
      metadata: { name: "race" },
      spec: { quotas: { project: { virtualClusterInstances: QUOTA } } },
    });
    // Each replica must know the project before the race, or it answers 404 for a reason of its own.
    for (const r of replicas) assert.equal((await r.request("GET", `${GROUP_PATH}/projects/race`)).status, 200);
    const results = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        (i % 2 ? a : b).request("POST", `${GROUP_PATH}/namespaces/p-race/virtualclusterinstances`, {
          body: {
            apiVersion: "management.platform/v1",
            kind: "VirtualClusterInstance",
            metadata: { name: `r${i}` },
            spec: { clusterRef: { cluster: "c1" } },
          },
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    const detail = results.map((r) => `${r.status} ${r.text}`).join("\n");
    assert.equal(statuses.filter((s) => s === 201).length, QUOTA, detail);
    assert.equal(statuses.filter((s) => s === 403).length, RACERS - QUOTA, detail);
    for (const r of results.filter((r) => r.status === 403)) {
      assert.match(r.json.message, /project quota virtualClusterInstances=4 reached in project "race" \(4 used\)/);
    }
    const listed = await b.request("GET", `${GROUP_PATH}/namespaces/p-race/virtualclusterinstances`);
    assert.equal(listed.json.items.length, QUOTA);
  });

  test("wake-ups on both replicas at once: exactly the running quota's number wake", async () => {
    const [a, b] = replicas as [TestServer, TestServer];
    await postObject(a, "projects", {
      metadata: { name: "wake-race" },
      spec: { quotas: { project: { runningVirtualClusterInstances: QUOTA } } },
    });
    for (const r of replicas) assert.equal((await r.request("GET", `${GROUP_PATH}/projects/wake-race`)).status, 200);
    const instances = `${GROUP_PATH}/namespaces/p-wake-race/virtualclusterinstances`;
    const names = Array.from({ length: RACERS }, (_, i) => `w${i}`);
    for (const name of names) {
      await postObject(a, "namespaces/p-wake-race/virtualclusterinstances", {
        metadata: { name },
        spec: { clusterRef: { cluster: "c1" } },
      });
      // Put to sleep at once: the next create finds a running slot.
      assert.equal((await a.request("POST", `${instances}/${name}/sleep`, { body: {} })).status, 200);
    }
    const results = await Promise.all(
      names.map((name, i) => (i % 2 ? a : b).request("POST", `${instances}/${name}/wakeup`, { body: {} })),
    );
    const detail = results.map((r) => `${r.status} ${r.text}`).join("\n");
    assert.equal(results.filter((r) => r.status === 200).length, QUOTA, detail);
    assert.equal(results.filter((r) => r.status === 403).length, RACERS - QUOTA, detail);
    const listed = await b.request("GET", instances);
    const awake = listed.json.items.filter((i: { status?: { sleep?: unknown } }) => i.status?.sleep === undefined);
    assert.equal(awake.length, QUOTA);
  });
});
