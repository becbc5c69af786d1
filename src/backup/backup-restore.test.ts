import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fetchBackupLines } from "../cli/fetch-backup.js";
import { main } from "../cli/main.js";
import { openStorage } from "../storage/factory.js";
import type { KeyValue, Storage, TxnOp, TxnResult } from "../storage/interface.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { BackupFileError, verifyBackupFile, writeBackupFile } from "./backup-file.js";
import { BACKUP_PREFIXES, keysAt } from "./backup-stream.js";
import { assertNoRestoreInProgress, RESTORE_MARKER, RestoreRefused, restoreBackup } from "./restore.js";

const G = GROUP_PATH;
const SECRET_TEXT = "backup-secret-value";

async function allKeys(storage: Storage, revision = 0): Promise<Map<string, KeyValue>> {
  const rev = revision || (await storage.currentRevision());
  const out = new Map<string, KeyValue>();
  for await (const kv of keysAt(storage, rev)) out.set(kv.key, kv);
  return out;
}

/** Every key and every field of every object, as in the source at the backup's revision. */
function assertSameObjects(source: Map<string, KeyValue>, restored: Map<string, KeyValue>): void {
  assert.deepEqual([...restored.keys()].sort(), [...source.keys()].sort());
  for (const [key, kv] of source) {
    const copy = restored.get(key)!;
    assert.ok(copy.value.equals(kv.value), `value of ${key}`);
    if (key.startsWith("/registry/")) {
      const a = JSON.parse(kv.value.toString("utf8"));
      const b = JSON.parse(copy.value.toString("utf8"));
      assert.deepEqual(b, a, key);
      assert.ok(b.metadata.uid && b.metadata.creationTimestamp, key);
    }
  }
}

describe("backup and restore", { timeout: 120_000 }, () => {
  let s: TestServer;
  let etcd: EtcdCluster;
  let dir: string;
  let file: string;
  let source: Map<string, KeyValue>;
  let viewerKey: string;

  const create = async (path: string, body: Record<string, unknown>) => {
    const r = await s.request("POST", `${G}/${path}`, { body });
    assert.equal(r.status, 201, `${path}: ${r.text}`);
    return r.json;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "platform-backup-"));
    file = join(dir, "one.backup.gz");
    [s, etcd] = await Promise.all([startTestServer(), EtcdCluster.start(1)]);
    // One object of every stored kind, with owner references and a finalizer.
    await create("users", {
      metadata: { name: "ann" },
      spec: { clusterRoles: [{ name: "platform-management-view" }] },
    });
    const key = await create("ownedaccesskeys", { metadata: { name: "ann" }, spec: { user: "ann" } });
    viewerKey = key.spec.key;
    await create("teams", { metadata: { name: "kept", finalizers: ["example.com/keep"] }, spec: { users: ["ann"] } });
    await create("clusters", { metadata: { name: "here" }, spec: { local: true } });
    await create("projects", { metadata: { name: "web" }, spec: {} });
    await create("namespaces/p-web/virtualclusterinstances", { metadata: { name: "vc" }, spec: {} });
    await create("namespaces/platform/sharedsecrets", {
      metadata: { name: "s" },
      spec: { data: { k: Buffer.from(SECRET_TEXT).toString("base64") } },
    });
    for (let i = 0; i < 12; i++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) => create("teams", { metadata: { name: `t${i}-${j}` }, spec: {} })),
      );
    }
    const server = { server: s.url, accessKey: s.adminKey, certificateAuthorityData: s.caPem };
    const { header, end } = await writeBackupFile(fetchBackupLines(server), file);
    source = await allKeys(s.storage, header.revision);
    assert.equal(end.objects, source.size);
    assert.equal(end.encryptionKeyIds.length, 1, JSON.stringify(end));
  });
  after(async () => {
    await s?.stop();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("holds every object once, with secret data still encrypted", async () => {
    const kinds = new Set([...source.keys()].map((k) => k.split("/")[3]));
    for (const k of [
      "users",
      "teams",
      "clusters",
      "projects",
      "virtualclusterinstances",
      "sharedsecrets",
      "ownedaccesskeys",
    ]) {
      assert.ok(kinds.has(k), k);
    }
    const plain = (await import("node:zlib")).gunzipSync(readFileSync(file)).toString("utf8");
    assert.ok(!plain.includes(Buffer.from(SECRET_TEXT).toString("base64")));
    assert.ok(!plain.includes(viewerKey), "access keys are stored hashed");
    assert.ok(plain.includes('"enc:v1:'));
  });

  it("is refused to anyone but an admin", async () => {
    const viewer = { server: s.url, accessKey: viewerKey, certificateAuthorityData: s.caPem };
    await assert.rejects(
      writeBackupFile(fetchBackupLines(viewer), join(dir, "no.gz")),
      /refused the backup.*cannot get path/,
    );
    assert.throws(() => statSync(join(dir, "no.gz")));
    assert.throws(() => statSync(join(dir, "no.gz.partial")));
  });

  it("restores into etcd: same keys and fields, new resourceVersions", async () => {
    const target = await openStorage(`${etcd.url}`);
    try {
      const result = await restoreBackup(file, target);
      assert.equal(result.objects, source.size);
      const restored = await allKeys(target);
      assertSameObjects(source, restored);
      assert.ok([...restored.values()].some((kv) => kv.modRevision !== source.get(kv.key)!.modRevision));
      assert.equal(await target.get(RESTORE_MARKER), undefined);
      await assert.rejects(restoreBackup(file, target), RestoreRefused, "a non-empty target");
    } finally {
      await target.close();
    }
  });

  it("restores into a SQLite data dir with the CLI, and a server serves it, secrets readable", async () => {
    const dataDir = join(dir, "restored");
    await main(["node", "platform", "restore", "--from", file, "--data-dir", dataDir]);
    assert.ok(!process.exitCode, "restore exit code");
    const target = await openStorage(`sqlite:${join(dataDir, "platform.db")}`);
    assertSameObjects(source, await allKeys(target));
    await target.close();
    copyFileSync(join(s.dataDir, "encryption-keys.json"), join(dataDir, "encryption-keys.json"));
    const restored = await startTestServer({ dataDir, bootstrapKey: "restored-admin-key-0123456789abcdef" });
    try {
      const secret = await restored.request("GET", `${G}/namespaces/platform/sharedsecrets/s`, { token: viewerKey });
      assert.equal(secret.status, 200, secret.text); // the viewer's key came back with the backup
      const team = await restored.request("GET", `${G}/teams/kept`, { token: viewerKey });
      const original = await s.request("GET", `${G}/teams/kept`);
      assert.deepEqual(team.json.metadata.finalizers, ["example.com/keep"]);
      assert.equal(team.json.metadata.uid, original.json.metadata.uid);
      assert.equal(team.json.metadata.creationTimestamp, original.json.metadata.creationTimestamp);
      const vc = await restored.request("GET", `${G}/namespaces/p-web/virtualclusterinstances/vc`, {
        token: viewerKey,
      });
      assert.deepEqual(
        vc.json.metadata.ownerReferences,
        (await s.request("GET", `${G}/namespaces/p-web/virtualclusterinstances/vc`)).json.metadata.ownerReferences,
      );
      // The original admin key (stored hashed) came back too.
      const admin = await restored.request("GET", `${G}/namespaces/platform/sharedsecrets/s`, { token: s.adminKey });
      assert.equal(admin.status, 200, admin.text);
      assert.equal(Buffer.from(admin.json.spec.data.k, "base64").toString(), SECRET_TEXT);
    } finally {
      await restored.stop();
    }
  });

  it("refuses a corrupted or truncated file with a clear error, writing nothing", async () => {
    const bytes = readFileSync(file);
    const corrupted = Buffer.from(bytes);
    for (let i = 200; i < 260; i++) corrupted[i] = corrupted[i]! ^ 0x5a;
    const truncated = bytes.subarray(0, Math.floor(bytes.length / 2));
    for (const [name, content, message] of [
      ["corrupted.gz", corrupted, /corrupted/],
      ["truncated.gz", truncated, /corrupted or truncated|truncated/],
      ["other.gz", Buffer.from("hello"), /corrupted or truncated|not a platform backup/],
    ] as const) {
      const bad = join(dir, name);
      writeFileSync(bad, content);
      const target = await openStorage(`sqlite:${join(dir, `${name}.db`)}`);
      try {
        await assert.rejects(
          restoreBackup(bad, target),
          (err: Error) => err instanceof BackupFileError && message.test(err.message),
        );
        assert.equal((await allKeys(target)).size, 0);
        assert.equal(await target.get(RESTORE_MARKER), undefined);
      } finally {
        await target.close();
      }
    }
  });

  it("after a crash halfway, the same restore run again completes; the server refuses the half-restored store", async () => {
    const path = `sqlite:${join(dir, "crashed.db")}`;
    const target = await openStorage(path);
    let batches = 0;
    const crashing: Storage = {
      create: (k, v) => target.create(k, v),
      get: (k) => target.get(k),
      list: (p, o) => target.list(p, o),
      update: (k, v, r) => target.update(k, v, r),
      delete: (k, r) => target.delete(k, r),
      txn(ops: readonly TxnOp[]): Promise<TxnResult> {
        if (ops[0]?.type === "create" && ++batches === 2) return Promise.reject(new Error("power cut"));
        return target.txn(ops);
      },
      watch: (p, o, c) => target.watch(p, o, c),
      currentRevision: () => target.currentRevision(),
      compactedRevision: () => target.compactedRevision(),
      compact: (r) => target.compact(r),
      close: () => target.close(),
    };
    await assert.rejects(restoreBackup(file, crashing), /power cut/);
    const partial = await allKeys(target);
    assert.ok(partial.size > 0 && partial.size < source.size);
    await assert.rejects(assertNoRestoreInProgress(target), /unfinished restore/);
    // A different backup is refused on top of the interrupted one.
    const other = join(dir, "other.backup.gz");
    const { writeBackupFile: write } = await import("./backup-file.js");
    const { backupLines } = await import("./backup-stream.js");
    const empty = await openStorage("sqlite::memory:");
    await write(backupLines(empty, "memory"), other);
    await empty.close();
    await assert.rejects(restoreBackup(other, target), /interrupted restore of a different backup/);
    const again = await restoreBackup(file, target);
    assert.equal(again.resumed, true);
    assertSameObjects(source, await allKeys(target));
    await assertNoRestoreInProgress(target);
    // --force replaces a store's content.
    const replaced = await restoreBackup(other, target, { force: true });
    assert.equal(replaced.objects, 0);
    for (const prefix of BACKUP_PREFIXES) assert.equal((await target.list(prefix)).items.length, 0);
    await target.close();
  });

  it("checks a file it writes", async () => {
    const { end } = await verifyBackupFile(file);
    assert.equal(end.objects, source.size);
  });
});
