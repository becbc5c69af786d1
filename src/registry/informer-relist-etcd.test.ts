import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { EtcdStorage } from "../storage/etcd/etcd-storage.js";
import { parseEtcdUrl } from "../storage/etcd/etcd-url.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { flakyStorage } from "../testing/flaky-storage.js";
import { createGadget, gadgetKind } from "../testing/gadget-kind.js";
import { waitFor } from "../testing/wait-for.js";
import { AdmissionChain } from "./admission.js";
import { Informer } from "./informer.js";
import type { InformerOutage } from "./informer-relist.js";
import { Store } from "./store.js";

// The etcd variant of informer-relist.test.ts: the informer's watch ends with an error while a
// real etcd is down, so its relists fail for real (etcd refuses the connection) until etcd is
// back. The watch's end is the only thing simulated: etcd's own Compacted needs a compaction
// that happens while this replica cannot watch, which no test can time.

let cluster: EtcdCluster | undefined;
const rejections: unknown[] = [];
const onRejection = (reason: unknown) => rejections.push(reason);
before(() => process.on("unhandledRejection", onRejection));
after(async () => {
  process.off("unhandledRejection", onRejection);
  await cluster?.stop();
});

/** Polls until `done` (a hang guard, not a timing assertion). */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(done(), what);
}

test("an informer whose relists fail while etcd is down recovers by itself once etcd is back", {
  timeout: 120_000,
}, async () => {
  cluster = await EtcdCluster.start(1);
  const etcd = new EtcdStorage(parseEtcdUrl(cluster.url));
  const flaky = flakyStorage(etcd);
  const store = new Store(gadgetKind(), { storage: flaky.storage, admission: new AdmissionChain([]) });
  const outages: InformerOutage[] = [];
  const informer = new Informer(store, undefined, {
    retryMinMs: 10,
    retryMaxMs: 200,
    onOutage: (o) => outages.push(o),
  });
  const create = (name: string) => createGadget(store, name);
  try {
    await create("a");
    await informer.synced();
    await cluster.kill(0);
    flaky.endWatch();
    await until(() => outages.length > 0, "the failing relist is reported");
    assert.equal(outages[0]!.phase, "failing");
    assert.equal(informer.watching, false);

    await cluster.restart(0);
    // The storage's client reconnects in its own time: its first calls may still be refused.
    const b = await waitFor(
      "etcd answering again",
      () => create("b").catch(() => undefined),
      (created) => created !== undefined,
    );
    assert.ok(b);
    assert.equal(await informer.reach(Number(b.metadata.resourceVersion), 60_000), true, "caught up by itself");
    assert.deepEqual(informer.names().sort(), ["a", "b"]);
    assert.equal(informer.watching, true);
    await until(() => outages.length === 2, "the recovery is reported");
    assert.equal(outages[1]!.phase, "recovered");
    assert.ok(outages[1]!.failedAttempts >= 1);
    assert.deepEqual(rejections, []);
  } finally {
    informer.stop();
    await etcd.close();
  }
});
