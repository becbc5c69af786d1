import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { clusterResource } from "../kinds/cluster/cluster.js";
import { ownedAccessKeyResource } from "../kinds/owned-access-key/owned-access-key.js";
import { projectResource } from "../kinds/project/project.js";
import { teamResource } from "../kinds/team/team.js";
import { userResource } from "../kinds/user/user.js";
import { AdmissionChain } from "../registry/admission.js";
import type { InformerOutage } from "../registry/informer-relist.js";
import { registryPartition } from "../registry/keys.js";
import { defaultWriteOptions } from "../registry/options.js";
import { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import { SharedInformers } from "../registry/shared-informers.js";
import { CachedStorage } from "../storage/cache/cached-storage.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { flakyStorage } from "../testing/flaky-storage.js";
import { accessWriteBarrier } from "./access-write-barrier.js";
import { AccessKeyAuthenticator } from "./authenticator.js";
import { IdentityIndex } from "./identity-index.js";

// A replica over a real SQLite store whose informers' watch of access keys ends with an error
// while the store refuses to list (as etcd does when it compacted what the watch needed and is
// then unreachable for a while): access decisions fail closed, and recover once the store answers.

const KINDS = [userResource, teamResource, ownedAccessKeyResource(), projectResource, clusterResource];
const TOKEN = `k-${"y".repeat(40)}`;
const WAIT_MS = 50;

const object = (kind: string, name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind,
  metadata: { name },
  spec,
});

async function replica() {
  const sqlite = openSqliteStorage(":memory:");
  const flaky = flakyStorage(sqlite);
  const cached = new CachedStorage(sqlite, { partition: registryPartition });
  const registry = new Registry(cached, KINDS, new AdmissionChain([]));
  const outages: InformerOutage[] = [];
  const informers = new SharedInformers(new Registry(flaky.storage, KINDS, new AdmissionChain([])), undefined, {
    retryMinMs: 1,
    retryMaxMs: 20,
    onOutage: (o) => outages.push(o),
  });
  const identity = new IdentityIndex(informers.for("ownedaccesskeys"), informers.for("users"), informers.for("teams"));
  cached.holdWrites(accessWriteBarrier({ registry, informers, identity, log: { error: () => {} }, waitMs: WAIT_MS }));
  const auth = new AccessKeyAuthenticator(identity, { catchUpWaitMs: WAIT_MS });
  const opts = defaultWriteOptions("test");
  await registry.store("users").create(systemContext(), undefined, object("User", "u", {}), opts);
  const key = object("OwnedAccessKey", "k", { user: "u", key: TOKEN });
  await registry.store("ownedaccesskeys").create(systemContext(), undefined, key, opts);
  await identity.start();
  await Promise.all([informers.for("projects").synced(), informers.for("clusters").synced()]);
  const disableKey = () =>
    registry
      .store("ownedaccesskeys")
      .guaranteedUpdate(systemContext(), undefined, "k", (o) => ({ ...o, spec: { ...o.spec, disabled: true } }));
  const close = () => {
    informers.stop();
    return cached.close();
  };
  return { flaky, outages, auth, disableKey, close };
}

/** The HTTP code an authentication was refused with, or 200. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 200,
    (err: unknown) => (err instanceof ApiError ? err.code : 0),
  );

describe("an access informer that cannot list again after its watch ended", () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  before(() => process.on("unhandledRejection", onRejection));
  after(() => process.off("unhandledRejection", onRejection));

  it("fails closed while the store refuses, and decides from the store's state once it answers", async () => {
    const r = await replica();
    try {
      assert.equal(await outcome(r.auth.authenticate(TOKEN)), 200);
      r.flaky.failing = true;
      r.flaky.endWatch(undefined, "ownedaccesskeys");
      // The key is disabled while this replica's copy of keys cannot follow: the write is
      // answered after the barrier's wait, and the stale copy decides nothing.
      await r.disableKey();
      assert.equal(await outcome(r.auth.authenticate(TOKEN)), 503, "never authenticated from the stale copy");
      assert.equal(r.outages[0]?.phase, "failing");

      r.flaky.failing = false;
      let last = 503;
      // A hang guard, not a timing assertion: the informer retries every 20 ms at most.
      for (let i = 0; i < 400 && last !== 401; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        last = await outcome(r.auth.authenticate(TOKEN));
      }
      assert.equal(last, 401, "the disabled key is refused once the copy has caught up");
      assert.deepEqual(
        r.outages.map((o) => [o.resource, o.phase]),
        [
          ["ownedaccesskeys", "failing"],
          ["ownedaccesskeys", "recovered"],
        ],
      );
      assert.deepEqual(rejections, []);
    } finally {
      await r.close();
    }
  });
});
