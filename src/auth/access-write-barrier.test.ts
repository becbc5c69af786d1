import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { hashAccessKey } from "../crypto/access-keys.js";
import { clusterResource } from "../kinds/cluster/cluster.js";
import { ownedAccessKeyResource } from "../kinds/owned-access-key/owned-access-key.js";
import { projectResource } from "../kinds/project/project.js";
import { teamResource } from "../kinds/team/team.js";
import { userResource } from "../kinds/user/user.js";
import { virtualClusterInstanceResource } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import { AdmissionChain } from "../registry/admission.js";
import { registryPartition } from "../registry/keys.js";
import { defaultWriteOptions } from "../registry/options.js";
import { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import { SharedInformers } from "../registry/shared-informers.js";
import { CachedStorage } from "../storage/cache/cached-storage.js";
import type { Storage, WatchCallbacks } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { storageWith } from "../testing/storage-with.js";
import { accessWriteBarrier } from "./access-write-barrier.js";
import { AccessKeyAuthenticator } from "./authenticator.js";
import { IdentityIndex } from "./identity-index.js";

const KINDS = [
  userResource,
  teamResource,
  ownedAccessKeyResource(),
  projectResource,
  clusterResource,
  virtualClusterInstanceResource,
];
const TOKEN = `k-${"x".repeat(40)}`;
const object = (kind: string, name: string, spec: Record<string, unknown>, namespace?: string): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec,
});

/**
 * A replica over one real SQLite store whose informers' watch can be held (its deliveries kept
 * back until released), as an etcd watch that delivers late: the writes go through the watch
 * cache's storage with the barrier, the informers watch the store beside it.
 */
async function replica(waitMs: number) {
  const sqlite = openSqliteStorage(":memory:");
  let held: Array<() => void> | undefined;
  const later = (f: () => void) => (held ? held.push(f) : f());
  const watched = storageWith(sqlite, {
    watch: (prefix: string, options: Parameters<Storage["watch"]>[1], cb: WatchCallbacks) =>
      sqlite.watch(prefix, options, {
        onEvents: (events) => later(() => cb.onEvents(events)),
        onProgress: (revision) => later(() => cb.onProgress?.(revision)),
        onError: (err) => later(() => cb.onError(err)),
      }),
  });
  const cached = new CachedStorage(sqlite, { partition: registryPartition });
  const registry = new Registry(cached, KINDS, new AdmissionChain([]));
  const informers = new SharedInformers(new Registry(watched, KINDS, new AdmissionChain([])));
  const identity = new IdentityIndex(informers.for("ownedaccesskeys"), informers.for("users"), informers.for("teams"));
  const logged: object[] = [];
  cached.holdWrites(
    accessWriteBarrier({ registry, informers, identity, log: { error: (o) => logged.push(o) }, waitMs }),
  );
  const auth = new AccessKeyAuthenticator(identity, { catchUpWaitMs: waitMs });
  const opts = defaultWriteOptions("test");
  const create = (plural: string, obj: KubeObject) =>
    registry.store(plural).create(systemContext(), obj.metadata.namespace, obj, opts);
  const setSpec = (plural: string, name: string, spec: Record<string, unknown>) =>
    registry
      .store(plural)
      .guaranteedUpdate(systemContext(), undefined, name, (o) => ({ ...o, spec: { ...o.spec, ...spec } }));
  await create("users", object("User", "u", {}));
  await create("ownedaccesskeys", object("OwnedAccessKey", "k", { user: "u", key: TOKEN }));
  await identity.start();
  await Promise.all([informers.for("projects").synced(), informers.for("clusters").synced()]);
  return {
    identity,
    auth,
    logged,
    create,
    setSpec,
    /** Holds the informers' watch deliveries until release(). */
    hold: () => {
      held = [];
    },
    release: () => {
      const queued = held ?? [];
      held = undefined;
      for (const f of queued) f();
    },
    close: () => {
      informers.stop();
      return cached.close();
    },
  };
}

const refusal = (code: number) => (err: unknown) => err instanceof ApiError && err.code === code;

describe("access write barrier", () => {
  const open: Array<{ close(): Promise<void> }> = [];
  const start = async (waitMs: number) => {
    const r = await replica(waitMs);
    open.push(r);
    return r;
  };
  after(() => Promise.all(open.map((r) => r.close())));

  it("answers a write of an access kind once this replica's informer applied it", async () => {
    const r = await start(60_000);
    assert.equal((await r.auth.authenticate(TOKEN)).name, "u");
    r.hold();
    let answered = false;
    const write = r.setSpec("ownedaccesskeys", "k", { disabled: true }).then(() => {
      answered = true;
    });
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false, "the disabling write waits for the informer of keys");
    r.release();
    await write;
    await assert.rejects(r.auth.authenticate(TOKEN), refusal(401));
    // The authorizer's kinds beside the identity's: project membership, a cluster's access rules.
    for (const [plural, kind, spec] of [
      ["projects", "Project", {}],
      ["clusters", "Cluster", { local: true }],
    ] as const) {
      r.hold();
      let created = false;
      const creating = r.create(plural, object(kind, "one", spec)).then(() => {
        created = true;
      });
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(created, false, `a write of ${plural} waits for its informer`);
      r.release();
      await creating;
    }
    assert.deepEqual(r.logged, []);
  });

  it("does not hold writes of other kinds, nor a new team naming no members", async () => {
    const r = await start(60_000);
    r.hold();
    // Were they held, they would be answered only when the wait gives up, a minute from now.
    await r.create("teams", object("Team", "nobody", { clusterRoles: [{ name: "platform-management-view" }] }));
    await r.create("virtualclusterinstances", object("VirtualClusterInstance", "v", {}, "p-one"));
    let answered = false;
    const naming = r.create("teams", object("Team", "someone", { users: ["u"] })).then(() => {
      answered = true;
    });
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(answered, false, "a new team naming a member waits");
    r.release();
    await naming;
    assert.deepEqual(r.logged, []);
  });

  it("when the informer does not apply the write in time, refuses until it has (fail closed)", async () => {
    const r = await start(50);
    assert.equal((await r.auth.authenticate(TOKEN)).name, "u");
    r.hold();
    await r.setSpec("ownedaccesskeys", "k", { disabled: true });
    assert.equal(r.logged.length, 1, "the give-up is logged");
    // The informer's copy still has the key enabled, and the identity was cached: both stale.
    assert.notEqual(r.identity.keyByHash(hashAccessKey(TOKEN))?.spec?.disabled, true);
    await assert.rejects(r.auth.authenticate(TOKEN), refusal(503));
    assert.equal(r.auth.cachedIdentity(TOKEN), undefined, "nothing is served from the cache meanwhile");
    r.release();
    await assert.rejects(r.auth.authenticate(TOKEN), refusal(401));
    assert.equal(r.identity.isBehind, false);
    await r.setSpec("ownedaccesskeys", "k", { disabled: false });
    assert.equal((await r.auth.authenticate(TOKEN)).name, "u");
  });
});
