import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { GROUP_PATH, startTestServer } from "../testing/test-server.js";
import { main } from "./main.js";

let etcd: EtcdCluster;
before(async () => {
  etcd = await EtcdCluster.start(1);
});
after(async () => {
  await etcd?.stop();
});

type Obj = { metadata: { name: string; uid: string }; spec: Record<string, unknown> };

test("migrate-storage copies every object from SQLite to etcd, keeping names, uids and contents", {
  timeout: 60_000,
}, async () => {
  const embedded = await startTestServer();
  const dataDir = embedded.dataDir;
  const team = await embedded.request("POST", `${GROUP_PATH}/teams`, {
    body: {
      apiVersion: "management.platform/v1",
      kind: "Team",
      metadata: { name: "ops", labels: { a: "b" } },
      spec: { displayName: "Ops" },
    },
  });
  assert.equal(team.status, 201, team.text);
  const before = new Map<string, Obj[]>();
  for (const plural of ["teams", "users", "ownedaccesskeys"]) {
    before.set(plural, ((await embedded.request("GET", `${GROUP_PATH}/${plural}`)).json as { items: Obj[] }).items);
  }
  await embedded.stop({ keepData: true });

  /** `platform migrate-storage` (in this process) from the stopped server's SQLite file to etcd. */
  const migrate = () =>
    main(["node", "platform", "migrate-storage", "--from", `sqlite:${join(dataDir, "platform.db")}`, "--to", etcd.url]);
  await migrate();
  // A second run refuses: the target is no longer empty.
  // main() reports errors as exit code 1 on stderr rather than throwing.
  const stderrWrite = process.stderr.write.bind(process.stderr);
  let stderr = "";
  process.stderr.write = ((chunk: string) => {
    stderr += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    await migrate();
  } finally {
    process.stderr.write = stderrWrite;
  }
  assert.equal(process.exitCode, 1);
  process.exitCode = 0;
  assert.match(stderr, /already holds objects/);

  // The same data dir (keys, certificates) now served from etcd.
  const scaled = await startTestServer({ dataDir, storage: etcd.url });
  try {
    for (const [plural, items] of before) {
      const now = ((await scaled.request("GET", `${GROUP_PATH}/${plural}`)).json as { items: Obj[] }).items;
      assert.deepEqual(
        now.map((o) => [o.metadata.name, o.metadata.uid, o.spec]),
        items.map((o) => [o.metadata.name, o.metadata.uid, o.spec]),
        plural,
      );
    }
    // The admin key still authenticates (the test server's requests use it).
    assert.equal((await scaled.request("GET", `${GROUP_PATH}/teams/ops`)).status, 200);
  } finally {
    await scaled.stop();
  }
});
