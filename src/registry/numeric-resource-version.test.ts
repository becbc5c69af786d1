import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { EtcdStorage } from "../storage/etcd/etcd-storage.js";
import { parseEtcdUrl } from "../storage/etcd/etcd-url.js";
import type { Storage } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { createGadget, gadgetKind } from "../testing/gadget-kind.js";
import { AdmissionChain } from "./admission.js";
import { defaultWriteOptions } from "./options.js";
import { systemContext } from "./request-context.js";
import { Store } from "./store.js";

// kube-apiserver parses the resourceVersion a write carries as a uint64 before comparing it with
// the object's, so "0042" names the object at 42, on every path that writes with one: an update,
// a merge or JSON patch that sets it, an apply that carries it. Not a number is a 400 here. A
// delete's precondition is kube's exception: Preconditions.Check compares the text.

/** The object's resourceVersion with leading zeros: the same number, another text. */
const padded = (obj: KubeObject) => `00${obj.metadata.resourceVersion}`;

async function codeOf(write: Promise<unknown>): Promise<number> {
  try {
    await write;
    return 200;
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
}

const opts = defaultWriteOptions("test");
const applyOpts = { ...opts, fieldManagerGiven: true };
const ctx = systemContext();

function suite(backend: string, open: () => Promise<Storage>): void {
  describe(`a write's resourceVersion compares as a number (${backend})`, () => {
    let storage: Storage | undefined;
    let n = 0;
    const setup = async () => {
      storage ??= await open();
      const store = new Store(gadgetKind(), { storage, admission: new AdmissionChain([]) });
      const name = `g${n++}`;
      return { store, name, obj: await createGadget(store, name) };
    };
    after(async () => storage?.close());

    it("an update with leading zeros applies", async () => {
      const { store, name, obj } = await setup();
      const body = { ...obj, metadata: { ...obj.metadata, resourceVersion: padded(obj), labels: { a: "1" } } };
      const updated = await store.update(ctx, undefined, name, body, opts);
      assert.equal(updated.metadata.labels?.a, "1");
    });

    it("a merge patch that sets it with leading zeros applies", async () => {
      const { store, name, obj } = await setup();
      const patch = { metadata: { resourceVersion: padded(obj), labels: { a: "1" } } };
      const patched = await store.patch(ctx, undefined, name, "merge", patch, opts);
      assert.equal(patched.metadata.labels?.a, "1");
      assert.ok(Number(patched.metadata.resourceVersion) > Number(obj.metadata.resourceVersion));
    });

    it("a JSON patch that sets it with leading zeros applies", async () => {
      const { store, name, obj } = await setup();
      const patch = [
        { op: "replace", path: "/metadata/resourceVersion", value: padded(obj) },
        { op: "add", path: "/metadata/labels", value: { a: "1" } },
      ];
      const patched = await store.patch(ctx, undefined, name, "json", patch, opts);
      assert.equal(patched.metadata.labels?.a, "1");
    });

    it("an apply that carries it with leading zeros applies", async () => {
      const { store, name, obj } = await setup();
      const config = {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        metadata: { name, resourceVersion: padded(obj), labels: { a: "1" } },
      };
      const applied = await store.patch(ctx, undefined, name, "apply", config, applyOpts);
      assert.equal(applied.metadata.labels?.a, "1");
    });

    it("an older one with leading zeros is still a conflict", async () => {
      const { store, name, obj } = await setup();
      const stale = padded(obj);
      await store.patch(ctx, undefined, name, "merge", { metadata: { labels: { b: "1" } } }, opts);
      const patch = { metadata: { resourceVersion: stale, labels: { a: "1" } } };
      assert.equal(await codeOf(store.patch(ctx, undefined, name, "merge", patch, opts)), 409);
      const config = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name, resourceVersion: stale } };
      assert.equal(await codeOf(store.patch(ctx, undefined, name, "apply", config, applyOpts)), 409);
    });

    it("one that is not a number is a 400 for a patch and an apply", async () => {
      const { store, name, obj } = await setup();
      for (const rv of ["4x", "-1", " 1", 42]) {
        const patch = { metadata: { resourceVersion: rv } };
        assert.equal(await codeOf(store.patch(ctx, undefined, name, "merge", patch, opts)), 400, `merge ${rv}`);
      }
      const config = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name, resourceVersion: "4x" } };
      assert.equal(await codeOf(store.patch(ctx, undefined, name, "apply", config, applyOpts)), 400);
    });

    it("a delete's precondition stays text, as kube-apiserver's Preconditions.Check compares it", async () => {
      const { store, name, obj } = await setup();
      const del = (resourceVersion: string) =>
        store.delete(ctx, undefined, name, { dryRun: false, preconditions: { resourceVersion } });
      await assert.rejects(del(padded(obj)), (err: ApiError) => {
        assert.equal(err.code, 409);
        assert.match(err.status.message, /the ResourceVersion in the precondition \(00\d+\) does not match/);
        return true;
      });
      assert.equal((await del(obj.metadata.resourceVersion!)).removed, true);
    });
  });
}

suite("SQLite", async () => openSqliteStorage(":memory:"));

let cluster: EtcdCluster | undefined;
after(async () => cluster?.stop());
suite("etcd", async () => {
  cluster = await EtcdCluster.start(1);
  return new EtcdStorage(parseEtcdUrl(cluster.url));
});
