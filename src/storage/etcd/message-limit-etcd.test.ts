/**
 * The client's largest message (max-receive-message-bytes) against a real etcd, with a limit far
 * under what one revision's events or one list page of these objects take.
 *
 * etcd runs with --max-request-bytes of 64 KiB: a fragmented watch response is then split into
 * parts under 64 KiB + 512 KiB (etcd adds 512 KiB for gRPC's overhead to its --max-request-bytes
 * and splits where a part would reach that), whatever the client's own limit. The client's limit
 * here, 1 MiB, is between a part and the whole response: fragmenting is what lets it through.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { EtcdCluster } from "../../testing/etcd-cluster.js";
import { StorageError } from "../errors.js";
import type { KeyValue, WatchEvent } from "../interface.js";
import { prefixEnd } from "../key-range.js";
import {
  type EtcdRequestError,
  encodeWatchCreate,
  MessageTooLargeError,
  type RangeRequest,
  type WatchResponse,
  WatchResponseDecoder,
} from "./client/index.js";
import { EtcdStorage } from "./etcd-storage.js";
import { parseEtcdUrl } from "./etcd-url.js";

const ETCD_MAX_REQUEST_BYTES = 64 << 10;
/** Where etcd splits a fragmented response: its --max-request-bytes and 512 KiB of gRPC overhead. */
const ETCD_PART_BYTES = ETCD_MAX_REQUEST_BYTES + (512 << 10);
const LIMIT = 1 << 20;
/** A value etcd takes in one request of at most 64 KiB. */
const VALUE_BYTES = 60 << 10;
/** 40 previous values of 60 KiB: one revision's events take 2.4 MiB, over LIMIT. */
const KEYS = 40;

let cluster: Promise<EtcdCluster> | undefined;
const etcd = (): Promise<EtcdCluster> => {
  cluster ??= EtcdCluster.start(1, { maxRequestBytes: ETCD_MAX_REQUEST_BYTES });
  return cluster;
};
after(async () => {
  if (cluster) await (await cluster).stop();
});

/** A storage with the client limit `limit`, its warnings kept. */
async function storageWithLimit(limit: number) {
  const c = await etcd();
  const warnings: string[] = [];
  const storage = new EtcdStorage({
    ...parseEtcdUrl(`${c.url}?max-receive-message-bytes=${limit}`),
    onWarning: (message) => warnings.push(message),
  });
  return { storage, warnings };
}

let prefixes = 0;
const freshPrefix = (what: string) => `/message-limit/${what}/${Date.now()}-${prefixes++}/`;
/** Keys in the order etcd keeps them. */
const keyOf = (p: string, i: number) => `${p}${String(i).padStart(3, "0")}`;
/** A value of `bytes` bytes, distinct for each i. */
const largeValue = (i: number, bytes = VALUE_BYTES) => Buffer.alloc(bytes, `value ${i} `);

/** Creates KEYS keys with large values, then changes them all in one transaction: its revision. */
async function changeManyLargeValuesAtOnce(storage: EtcdStorage, p: string): Promise<number> {
  const created: number[] = [];
  for (let i = 0; i < KEYS; i++) created.push(await storage.create(keyOf(p, i), largeValue(i)));
  const { revision } = await storage.txn(
    created.map((rev, i) => ({
      type: "update" as const,
      key: keyOf(p, i),
      value: Buffer.from(`new ${i}`),
      expectedModRevision: rev,
    })),
  );
  return revision;
}

async function until(what: string, check: () => boolean): Promise<void> {
  // A hang guard, not a timing assertion: generous for a loaded machine.
  for (let i = 0; i < 1_500 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(check(), `waited in vain for ${what}`);
}

describe("a watch whose one revision is larger than the client's largest message", () => {
  test("delivers every event of the revision, in order, with each previous value (etcd splits it, the client joins the parts)", async () => {
    const { storage, warnings } = await storageWithLimit(LIMIT);
    const p = freshPrefix("watch");
    try {
      const start = await storage.currentRevision();
      const events: WatchEvent[] = [];
      let failed: Error | undefined;
      const watcher = storage.watch(
        p,
        { afterRevision: start },
        {
          onEvents: (evs) => events.push(...evs),
          onError: (err) => {
            failed = err;
          },
        },
      );
      const revision = await changeManyLargeValuesAtOnce(storage, p);
      await until(
        `the ${KEYS} events of revision ${revision}`,
        () =>
          failed !== undefined || warnings.length > 0 || events.filter((e) => e.revision === revision).length >= KEYS,
      );
      watcher.close();
      assert.equal(failed, undefined);
      assert.deepEqual(warnings, [], "no stream failed on a message over the limit");
      const changed = events.filter((e) => e.revision === revision);
      assert.deepEqual(
        changed.map((e) => e.kv.key),
        Array.from({ length: KEYS }, (_, i) => keyOf(p, i)),
        "all of the revision's events, in the transaction's order",
      );
      changed.forEach((e, i) => {
        assert.equal(e.type, "put");
        assert.equal(e.kv.value.toString(), `new ${i}`);
        assert.ok(e.prevKv?.value.equals(largeValue(i)), `event ${i} carries its previous value`);
      });
    } finally {
      await storage.close();
    }
  });

  test("what etcd sends: with `fragment`, parts under its own split size, each but the last marked; without it, one message the client refuses", async () => {
    const { storage } = await storageWithLimit(LIMIT);
    const p = freshPrefix("raw");
    try {
      const revision = await changeManyLargeValuesAtOnce(storage, p);
      const watchFrom = async (fragment: boolean) => {
        const decoder = new WatchResponseDecoder(Buffer.from(p));
        const parts: { bytes: number; res: WatchResponse }[] = [];
        let ended: EtcdRequestError | undefined;
        const stream = await storage.kv.openStream("/etcdserverpb.Watch/Watch", {
          onMessage: (m) => parts.push({ bytes: m.length, res: decoder.decode(m) }),
          onEnd: (err) => {
            ended = err;
          },
        });
        stream.write(
          encodeWatchCreate({
            key: Buffer.from(p),
            rangeEnd: Buffer.from(prefixEnd(p)!),
            startRevision: revision,
            prevKv: true,
            progressNotify: false,
            fragment,
          }),
        );
        const last = () => parts.some((x) => x.res.eventCount > 0 && !x.res.fragment);
        await until("the revision's response, or the stream's end", () => ended !== undefined || last());
        stream.cancel();
        return { parts: parts.filter((x) => x.res.eventCount > 0), ended };
      };

      const split = await watchFrom(true);
      assert.equal(split.ended, undefined);
      assert.ok(split.parts.length > 1, `${split.parts.length} part(s)`);
      assert.deepEqual(
        split.parts.map((x) => x.res.fragment),
        split.parts.map((_, i) => i < split.parts.length - 1),
        "every part but the last says more follow",
      );
      for (const { bytes } of split.parts) assert.ok(bytes < ETCD_PART_BYTES, `a part of ${bytes} bytes`);
      assert.equal(
        split.parts.reduce((n, x) => n + x.res.eventCount, 0),
        KEYS,
      );

      const whole = await watchFrom(false);
      assert.deepEqual(whole.parts, [], "nothing of the oversized response is delivered");
      assert.ok(whole.ended instanceof MessageTooLargeError, String(whole.ended));
      assert.ok(whole.ended.length > LIMIT);
    } finally {
      await storage.close();
    }
  });
});

/** The limits of the Range calls a list makes, and which of them the client refused. */
function recordRanges(storage: EtcdStorage) {
  const calls: { limit: number; refused: boolean }[] = [];
  const range = storage.kv.range.bind(storage.kv);
  storage.kv.range = async (r: RangeRequest) => {
    try {
      const res = await range(r);
      if (!r.keys_only) calls.push({ limit: r.limit ?? 0, refused: false });
      return res;
    } catch (err) {
      calls.push({ limit: r.limit ?? 0, refused: err instanceof MessageTooLargeError });
      throw err;
    }
  };
  return calls;
}

const keysOf = (items: readonly KeyValue[]) => items.map((kv) => kv.key);

describe("a list whose pages are larger than the client's largest message", () => {
  test("reads them again in halves until they fit, keeps that size while the objects stay large, and returns every object", async () => {
    const { storage } = await storageWithLimit(LIMIT);
    const p = freshPrefix("list");
    try {
      for (let i = 0; i < KEYS; i++) await storage.create(keyOf(p, i), largeValue(i));
      const calls = recordRanges(storage);
      const list = await storage.list(p);
      assert.deepEqual(
        keysOf(list.items),
        Array.from({ length: KEYS }, (_, i) => keyOf(p, i)),
      );
      list.items.forEach((kv, i) => {
        assert.ok(kv.value.equals(largeValue(i)));
      });
      assert.equal(calls[0]!.limit, 1000);
      assert.ok(calls[0]!.refused, "the first page, 2.4 MiB, is refused");
      const firstFit = calls.findIndex((c) => !c.refused);
      assert.ok(firstFit > 0);
      for (let i = 1; i <= firstFit; i++) assert.equal(calls[i]!.limit, Math.ceil(calls[i - 1]!.limit / 2), "halved");
      assert.ok(
        calls.slice(firstFit).every((c) => !c.refused && c.limit === calls[firstFit]!.limit),
        `the later pages keep the size that fit: ${JSON.stringify(calls)}`,
      );
      assert.ok(calls.length > firstFit + 1, "more than one page");
    } finally {
      await storage.close();
    }
  });

  test("grows the pages back once the objects are small again", async () => {
    const { storage } = await storageWithLimit(LIMIT);
    const p = freshPrefix("list-mixed");
    try {
      const large = 20; // 1.2 MiB together
      const small = 300;
      for (let i = 0; i < large; i++) await storage.create(keyOf(p, i), largeValue(i));
      // In transactions of 100 (etcd's --max-txn-ops is 128).
      for (let from = 0; from < small; from += 100)
        await storage.txn(
          Array.from({ length: 100 }, (_, j) => ({
            type: "create" as const,
            key: keyOf(p, large + from + j),
            value: Buffer.from(`small ${from + j}`),
          })),
        );
      const calls = recordRanges(storage);
      const list = await storage.list(p);
      assert.deepEqual(
        keysOf(list.items),
        Array.from({ length: large + small }, (_, i) => keyOf(p, i)),
      );
      const fits = calls.filter((c) => !c.refused).map((c) => c.limit);
      const smallest = Math.min(...fits);
      assert.ok(smallest < large, `the large objects were read in pages of ${smallest}`);
      assert.ok(
        fits.slice(fits.indexOf(smallest)).some((limit) => limit > smallest),
        `the pages grew again: ${JSON.stringify(calls)}`,
      );
    } finally {
      await storage.close();
    }
  });

  test("an object over the limit by itself fails the list as Unavailable, naming the limit and the URL option, never the object; the log names its key", async () => {
    const limit = 32 << 10; // under one 60 KiB value
    const { storage, warnings } = await storageWithLimit(limit);
    const p = freshPrefix("list-one-too-large");
    try {
      await storage.create(keyOf(p, 0), Buffer.from("small"));
      await storage.create(keyOf(p, 1), largeValue(1));
      await storage.create(keyOf(p, 2), Buffer.from("small"));
      const err = await storage.list(p).then(
        () => assert.fail("the list succeeded"),
        (e: unknown) => e,
      );
      assert.ok(err instanceof StorageError && err.code === "Unavailable", String(err));
      assert.match(
        err.message,
        new RegExp(
          `an object under ${p} alone is \\d+ bytes, over the etcd client's largest message of ${limit} bytes \\(the etcd storage URL's max-receive-message-bytes=\\)`,
        ),
      );
      assert.ok(!err.message.includes("value 1"), "no part of the value");
      assert.ok(!err.message.includes(keyOf(p, 1)), "not the key either");
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, new RegExp(`the object ${keyOf(p, 1)} alone is`));
      // The objects before it are not the problem: a list that stops before it succeeds.
      assert.deepEqual(keysOf((await storage.list(p, { limit: 1 })).items), [keyOf(p, 0)]);
    } finally {
      await storage.close();
    }
  });
});
