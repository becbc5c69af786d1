/**
 * The one test suite every Storage backend must pass (SQLite now, etcd later). It only uses
 * the Storage interface, and every test works under its own random key prefix so that several
 * tests (or several runs) can share one etcd. Compaction is global in etcd: the compaction test
 * only compacts up to revisions it wrote itself, but suites compacting one shared etcd from
 * several processes at once can still disturb each other's list-at-old-revision checks.
 *
 * Usage, in a backend's *.test.ts:
 *   runStorageSuite("sqlite (memory)", async () => ({ storage: openX(), cleanup: async () => {} }));
 * The suite closes the storage after each test (unless the test did), then calls `cleanup`.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { isStorageError, type StorageErrorCode } from "../storage/errors.js";
import {
  type KeyValue,
  type ListOptions,
  newKeyValue,
  type Storage,
  type WatchCallbacks,
  type WatchEvent,
  type Watcher,
} from "../storage/interface.js";

export interface OpenedStorage {
  readonly storage: Storage;
  /** Called after the storage was closed: remove files, disconnect helpers. */
  readonly cleanup: () => Promise<void>;
}

export type OpenStorage = () => Promise<OpenedStorage>;

interface SuiteContext {
  readonly storage: Storage;
  /** A unique prefix for this test's keys, ending in '/'. */
  readonly p: string;
  /** Close the storage inside the test (the suite then does not close it again). */
  readonly closeStorage: () => Promise<void>;
}

/** Hang guard only: no test asserts on time. */
const TEST_TIMEOUT_MS = 60_000;

const bytes = (s: string): Buffer => Buffer.from(s);
const text = (kv: KeyValue | undefined): string | undefined => kv?.value.toString();

async function rejectsWith(promise: Promise<unknown>, code: StorageErrorCode): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(isStorageError(err, code), `expected StorageError ${code}, got ${String(err)}`);
    return true;
  });
}

/** Records a watch's events and lets a test wait for a condition on them. */
class EventLog implements WatchCallbacks {
  readonly events: WatchEvent[] = [];
  readonly errors: Error[] = [];
  private readonly waiters: { check: () => boolean; resolve: () => void }[] = [];

  onEvents(events: readonly WatchEvent[]): void {
    this.events.push(...events);
    this.wake();
  }

  onError(err: Error): void {
    this.errors.push(err);
    this.wake();
  }

  until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ check, resolve }));
  }

  /** Wait for an event on `key`; return every event before it. */
  async untilKey(key: string): Promise<WatchEvent[]> {
    await this.until(() => this.events.some((e) => e.kv.key === key));
    return this.events.slice(
      0,
      this.events.findIndex((e) => e.kv.key === key),
    );
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.check()) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }
}

function watch(storage: Storage, prefix: string, afterRevision: number): { log: EventLog; watcher: Watcher } {
  const log = new EventLog();
  const watcher = storage.watch(prefix, { afterRevision }, log);
  return { log, watcher };
}

function summary(events: readonly WatchEvent[]): string[] {
  return events.map((e) => `${e.type} ${e.kv.key} ${e.kv.value.toString()}`);
}

function assertIncreasing(revisions: readonly number[]): void {
  for (let i = 1; i < revisions.length; i++) {
    assert.ok(revisions[i]! > revisions[i - 1]!, `revisions not increasing: ${revisions.join(",")}`);
  }
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The suite's `it`: a test given a fresh storage and a key prefix of its own. */
type SuiteTest = (title: string, fn: (ctx: SuiteContext) => Promise<void>) => void;

export function runStorageSuite(name: string, open: OpenStorage): void {
  const it = suiteTest(open);
  describe(`storage suite: ${name}`, () => {
    describe("single keys", () => singleKeyTests(it));
    describe("list", () => {
      listMatchingTests(it);
      listRevisionTests(it);
    });
    describe("txn", () => txnTests(it));
    describe("watch", () => {
      watchDeliveryTests(it);
      watchEventTests(it);
    });
    describe("compaction", () => compactionTests(it));
    describe("concurrency", () => concurrencyTests(it));
    describe("close", () => closeTests(it));
  });
}

/** Opens a storage for each test, closes it after (unless the test did), then cleans up. */
function suiteTest(open: OpenStorage): SuiteTest {
  return (title, fn) => {
    test(title, { timeout: TEST_TIMEOUT_MS }, async () => {
      const { storage, cleanup } = await open();
      let closed = false;
      const ctx: SuiteContext = {
        storage,
        p: `/storage-suite/${randomUUID()}/`,
        closeStorage: async () => {
          closed = true;
          await storage.close();
        },
      };
      try {
        await fn(ctx);
      } finally {
        if (!closed) await storage.close();
        await cleanup();
      }
    });
  };
}

/** The basic calls on one key: create, get, update, delete and their revisions. */
function singleKeyTests(it: SuiteTest): void {
  it("create then get returns the value and its revisions", async ({ storage, p }) => {
    const rev = await storage.create(`${p}a`, bytes("one"));
    assert.ok(rev > 0);
    const kv = await storage.get(`${p}a`);
    assert.deepEqual(kv, newKeyValue(`${p}a`, bytes("one"), rev, rev));
    assert.equal(await storage.get(`${p}missing`), undefined);
    assert.ok((await storage.currentRevision()) >= rev);
  });

  it("create of an existing key fails with KeyExists and changes nothing", async ({ storage, p }) => {
    const rev = await storage.create(`${p}a`, bytes("one"));
    await rejectsWith(storage.create(`${p}a`, bytes("two")), "KeyExists");
    assert.equal(text(await storage.get(`${p}a`)), "one");
    assert.equal((await storage.get(`${p}a`))?.modRevision, rev);
  });

  it("update needs the current modRevision (Conflict otherwise, NotFound when missing)", async ({ storage, p }) => {
    const created = await storage.create(`${p}a`, bytes("v1"));
    const updated = await storage.update(`${p}a`, bytes("v2"), created);
    assert.ok(updated > created);
    assert.deepEqual(await storage.get(`${p}a`), newKeyValue(`${p}a`, bytes("v2"), created, updated));
    await rejectsWith(storage.update(`${p}a`, bytes("stale"), created), "Conflict");
    await rejectsWith(storage.update(`${p}missing`, bytes("x"), updated), "NotFound");
    assert.equal(text(await storage.get(`${p}a`)), "v2");
  });

  it("delete with and without a precondition returns the previous key", async ({ storage, p }) => {
    const a = await storage.create(`${p}a`, bytes("A"));
    const b = await storage.create(`${p}b`, bytes("B"));
    const deleted = await storage.delete(`${p}a`);
    assert.ok(deleted.revision > b);
    assert.deepEqual(deleted.prev, newKeyValue(`${p}a`, bytes("A"), a, a));
    assert.equal(await storage.get(`${p}a`), undefined);
    await rejectsWith(storage.delete(`${p}a`), "NotFound");

    await rejectsWith(storage.delete(`${p}b`, b - 1), "Conflict");
    assert.equal(text(await storage.get(`${p}b`)), "B");
    const deletedB = await storage.delete(`${p}b`, b);
    assert.equal(deletedB.prev.modRevision, b);
    assert.equal(await storage.get(`${p}b`), undefined);
  });

  it("revisions strictly increase and the current revision follows the last write", async ({ storage, p }) => {
    const revisions = [await storage.create(`${p}a`, bytes("1")), await storage.create(`${p}b`, bytes("1"))];
    revisions.push(await storage.update(`${p}a`, bytes("2"), revisions[0]!));
    revisions.push((await storage.delete(`${p}b`)).revision);
    revisions.push(await storage.create(`${p}c`, bytes("1")));
    assertIncreasing(revisions);
    assert.ok((await storage.currentRevision()) >= revisions[revisions.length - 1]!);
    const a = await storage.get(`${p}a`);
    assert.equal(a?.createRevision, revisions[0]);
    assert.equal(a?.modRevision, revisions[2]);
  });

  it("a key can be created again after its deletion", async ({ storage, p }) => {
    const first = await storage.create(`${p}a`, bytes("first"));
    const { revision: deletedAt } = await storage.delete(`${p}a`);
    const { log } = watch(storage, p, deletedAt);
    const second = await storage.create(`${p}a`, bytes("second"));
    assert.ok(second > deletedAt);
    assert.deepEqual(await storage.get(`${p}a`), newKeyValue(`${p}a`, bytes("second"), second, second));
    await rejectsWith(storage.update(`${p}a`, bytes("x"), first), "Conflict");
    assert.deepEqual((await storage.list(p, { revision: deletedAt })).items, []);
    await log.until(() => log.events.length === 1);
    assert.equal(log.events[0]!.type, "put");
    assert.equal(log.events[0]!.prevKv, undefined);
    assert.equal(log.events[0]!.kv.createRevision, second);
  });
}

/** Which keys a list returns, and in which order. */
function listMatchingTests(it: SuiteTest): void {
  it("matches the prefix exactly (no sibling prefixes, no LIKE wildcards)", async ({ storage, p }) => {
    for (const key of ["a/b", "a/b/x", "a/bc/x", "a/b/y/z", "a/b0", "x%/1", "xy/1", "x_/1", "xz/1"]) {
      await storage.create(`${p}${key}`, bytes(key));
    }
    const keys = async (prefix: string) => (await storage.list(`${p}${prefix}`)).items.map((i) => i.key);
    assert.deepEqual(await keys("a/b/"), [`${p}a/b/x`, `${p}a/b/y/z`]);
    assert.deepEqual(await keys("x%/"), [`${p}x%/1`]);
    assert.deepEqual(await keys("x_/"), [`${p}x_/1`]);
    assert.deepEqual(await keys("nothing/"), []);
    const all = await keys("");
    assert.deepEqual(all, [...all].sort());
    assert.equal(all.length, 9);
  });

  it("orders keys as UTF-8 bytes and bounds prefixes ending in the highest code points", async ({ storage, p }) => {
    // Keys whose UTF-16 order differs from their byte order (U+E000..U+FFFF sort below
    // U+10000 as bytes, above it as UTF-16 units), and prefixes whose end needs a carry.
    const edge = ["a\u{10000}", "a\u{10ffff}", "a\u{10ffff}b", "a\ue000", "a\uffff", "a\uffffb", "a~", "b", "\u00e9"];
    // Half before the first list, half after: a cache fills from the first and hears the rest.
    for (const key of edge.slice(0, 4)) await storage.create(`${p}${key}`, bytes(key));
    await storage.list(p);
    for (const key of edge.slice(4)) await storage.create(`${p}${key}`, bytes(key));
    const byteOrder = edge.map((k) => `${p}${k}`).sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    const keys = async (prefix: string, options?: ListOptions) =>
      (await storage.list(`${p}${prefix}`, options)).items.map((i) => i.key);
    assert.deepEqual(await keys(""), byteOrder);
    for (const prefix of ["a\u{10000}", "a\u{10ffff}", "a\uffff", "a\ue000", "a", "\u00e9"]) {
      const expected = byteOrder.filter((k) => k.startsWith(`${p}${prefix}`));
      assert.deepEqual(await keys(prefix), expected, `prefix ${JSON.stringify(prefix)}`);
    }
    // Paging through in pieces meets every key once, in the same order.
    const paged: string[] = [];
    let after: string | undefined;
    for (let more = true; more; ) {
      const page = await storage.list(p, { limit: 2, ...(after === undefined ? {} : { after }) });
      paged.push(...page.items.map((i) => i.key));
      after = paged.at(-1);
      more = page.more;
    }
    assert.deepEqual(paged, byteOrder);
    // A watch's replay is bounded the same way.
    const seen = await new Promise<string[]>((resolve, reject) => {
      const got: string[] = [];
      const w = storage.watch(
        `${p}a\u{10ffff}`,
        { afterRevision: 0 },
        {
          onEvents: (events) => {
            got.push(...events.map((e) => e.kv.key));
            if (got.length < 2) return;
            w.close();
            resolve(got);
          },
          onError: reject,
        },
      );
    });
    assert.deepEqual(seen, [`${p}a\u{10ffff}`, `${p}a\u{10ffff}b`]);
  });
}

/** Lists at a past revision, and in pages at one revision. */
function listRevisionTests(it: SuiteTest): void {
  it("reads the state as of a past revision", async ({ storage, p }) => {
    const a1 = await storage.create(`${p}a`, bytes("a1"));
    const b1 = await storage.create(`${p}b`, bytes("b1"));
    await storage.update(`${p}a`, bytes("a2"), a1);
    await storage.delete(`${p}b`);
    await storage.create(`${p}c`, bytes("c1"));

    const past = await storage.list(p, { revision: b1 });
    assert.equal(past.revision, b1);
    assert.deepEqual(past.items, [
      newKeyValue(`${p}a`, bytes("a1"), a1, a1),
      newKeyValue(`${p}b`, bytes("b1"), b1, b1),
    ]);
    const now = await storage.list(p);
    assert.deepEqual(
      now.items.map((i) => [i.key, i.value.toString()]),
      [
        [`${p}a`, "a2"],
        [`${p}c`, "c1"],
      ],
    );
    assert.ok(now.revision >= now.items[1]!.modRevision);
  });

  it("paginates with after + limit, counting what remains, at one revision", async ({ storage, p }) => {
    for (let i = 0; i < 5; i++) await storage.create(`${p}k${i}`, bytes(`${i}`));
    const page1 = await storage.list(p, { limit: 2 });
    assert.deepEqual(
      page1.items.map((i) => i.key),
      [`${p}k0`, `${p}k1`],
    );
    assert.equal(page1.more, true);
    assert.equal(page1.remaining, 3);

    // Writes between pages do not show: later pages read at the first page's revision.
    await storage.delete(`${p}k2`);
    await storage.create(`${p}k2a`, bytes("new"));
    const page2 = await storage.list(p, { limit: 2, after: page1.items[1]!.key, revision: page1.revision });
    assert.deepEqual(
      page2.items.map((i) => i.key),
      [`${p}k2`, `${p}k3`],
    );
    assert.equal(page2.more, true);
    assert.equal(page2.remaining, 1);
    assert.equal(page2.revision, page1.revision);
    const page3 = await storage.list(p, { limit: 2, after: page2.items[1]!.key, revision: page1.revision });
    assert.deepEqual(
      page3.items.map((i) => i.key),
      [`${p}k4`],
    );
    assert.equal(page3.more, false);

    const exact = await storage.list(p, { limit: 5 });
    assert.equal(exact.items.length, 5);
    assert.equal(exact.more, false);
  });
}

/** Several writes at one revision, all or none. */
function txnTests(it: SuiteTest): void {
  it("applies every operation at one revision", async ({ storage, p }) => {
    const b = await storage.create(`${p}b`, bytes("b1"));
    await storage.create(`${p}c`, bytes("c1"));
    const before = await storage.currentRevision();
    const { log } = watch(storage, p, before);
    const { revision } = await storage.txn([
      { type: "create", key: `${p}a`, value: bytes("a1") },
      { type: "update", key: `${p}b`, value: bytes("b2"), expectedModRevision: b },
      { type: "delete", key: `${p}c` },
    ]);
    assert.ok(revision > before);
    assert.equal((await storage.get(`${p}a`))?.modRevision, revision);
    assert.equal((await storage.get(`${p}b`))?.modRevision, revision);
    assert.equal(await storage.get(`${p}c`), undefined);
    // Nothing of the transaction is visible one revision earlier: it is atomic in history too.
    const justBefore = await storage.list(p, { revision: revision - 1 });
    assert.deepEqual(
      justBefore.items.map((i) => [i.key, i.value.toString()]),
      [
        [`${p}b`, "b1"],
        [`${p}c`, "c1"],
      ],
    );
    await log.until(() => log.events.length === 3);
    assert.deepEqual(summary(log.events), [`put ${p}a a1`, `put ${p}b b2`, `delete ${p}c c1`]);
    assert.ok(log.events.every((e) => e.revision === revision));
  });

  it("is all-or-nothing: one failing operation leaves everything unchanged", async ({ storage, p }) => {
    const b = await storage.create(`${p}b`, bytes("b1"));
    await storage.update(`${p}b`, bytes("b2"), b);
    const before = await storage.currentRevision();
    const listBefore = await storage.list(p);
    const { log } = watch(storage, p, before);

    await rejectsWith(
      storage.txn([
        { type: "create", key: `${p}a`, value: bytes("a1") },
        { type: "update", key: `${p}b`, value: bytes("stale"), expectedModRevision: b },
      ]),
      "Conflict",
    );
    await rejectsWith(
      storage.txn([
        { type: "create", key: `${p}z`, value: bytes("z") },
        { type: "create", key: `${p}b`, value: bytes("again") },
      ]),
      "KeyExists",
    );
    await rejectsWith(
      storage.txn([
        { type: "create", key: `${p}c`, value: bytes("c") },
        { type: "delete", key: `${p}missing` },
      ]),
      "NotFound",
    );
    assert.equal(await storage.currentRevision(), before);
    assert.deepEqual(await storage.list(p), listBefore);
    assert.equal(await storage.get(`${p}a`), undefined);
    const marker = `${p}marker`;
    await storage.create(marker, bytes("m"));
    assert.deepEqual(await log.untilKey(marker), []);
  });
}

/** Which events a watch delivers, from where, and in which order. */
function watchDeliveryTests(it: SuiteTest): void {
  it("replays history after a revision, then delivers live events in order", async ({ storage, p }) => {
    const r1 = await storage.create(`${p}a`, bytes("a1"));
    await storage.create(`${p}b`, bytes("b1"));
    await storage.update(`${p}a`, bytes("a2"), r1);
    const { log } = watch(storage, p, r1);
    await storage.delete(`${p}b`);
    await storage.create(`${p}c`, bytes("c1"));
    await storage.create(`${p}marker`, bytes("m"));
    const events = await log.untilKey(`${p}marker`);
    assert.deepEqual(summary(events), [`put ${p}b b1`, `put ${p}a a2`, `delete ${p}b b1`, `put ${p}c c1`]);
    assertIncreasing(log.events.map((e) => e.revision));
    assert.ok(events.every((e) => e.kv.modRevision === e.revision));
    assert.deepEqual(log.errors, []);
  });

  it("misses and repeats nothing when writes race the start of the watch", async ({ storage, p }) => {
    const start = await storage.currentRevision();
    const writes: Promise<number>[] = [];
    const keys: string[] = [];
    let log: EventLog | undefined;
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 10; i++) {
        const key = `${p}k${String(round * 10 + i).padStart(3, "0")}`;
        keys.push(key);
        writes.push(storage.create(key, bytes(key)));
      }
      // Some writes are committed before the watch starts, some are in flight as it starts.
      if (round === 3) await Promise.all(writes);
      if (round === 5) log = watch(storage, p, start).log;
      await turn();
    }
    const revisions = await Promise.all(writes);
    await storage.create(`${p}marker`, bytes("m"));
    const events = await log!.untilKey(`${p}marker`);
    const expected = keys.map((key, i) => ({ key, revision: revisions[i]! }));
    expected.sort((x, y) => x.revision - y.revision);
    assert.deepEqual(
      events.map((e) => ({ key: e.kv.key, revision: e.revision })),
      expected,
    );
    assertIncreasing(events.map((e) => e.revision));
  });

  it("delivers only keys under the watched prefix", async ({ storage, p }) => {
    const { log } = watch(storage, `${p}a/`, await storage.currentRevision());
    for (const key of ["a/x", "ab/x", "b/x", "a/y/z", "a"]) await storage.create(`${p}${key}`, bytes(key));
    await storage.create(`${p}a/marker`, bytes("m"));
    const events = await log.untilKey(`${p}a/marker`);
    assert.deepEqual(
      events.map((e) => e.kv.key),
      [`${p}a/x`, `${p}a/y/z`],
    );
  });
}

/** What each event carries, and that a closed watcher is silent. */
function watchEventTests(it: SuiteTest): void {
  it("reports previous values: prevKv on updates, the last value on deletes", async ({ storage, p }) => {
    const { log } = watch(storage, p, await storage.currentRevision());
    const created = await storage.create(`${p}a`, bytes("v1"));
    const updated = await storage.update(`${p}a`, bytes("v2"), created);
    const { revision: deleted } = await storage.delete(`${p}a`);
    const expected: WatchEvent[] = [
      {
        type: "put",
        kv: newKeyValue(`${p}a`, bytes("v1"), created, created),
        revision: created,
      },
      {
        type: "put",
        kv: newKeyValue(`${p}a`, bytes("v2"), created, updated),
        prevKv: newKeyValue(`${p}a`, bytes("v1"), created, created),
        revision: updated,
      },
      {
        type: "delete",
        kv: newKeyValue(`${p}a`, bytes("v2"), created, deleted),
        prevKv: newKeyValue(`${p}a`, bytes("v2"), created, updated),
        revision: deleted,
      },
    ];
    await log.until(() => log.events.length === 3);
    assert.deepEqual(normalize(log.events), normalize(expected));
    // The same events replayed from history.
    const replay = watch(storage, p, created - 1).log;
    await replay.until(() => replay.events.length === 3);
    assert.deepEqual(normalize(replay.events), normalize(expected));
  });

  it("stops delivering after Watcher.close()", async ({ storage, p }) => {
    const { log, watcher } = watch(storage, p, await storage.currentRevision());
    await storage.create(`${p}a`, bytes("a"));
    await log.until(() => log.events.length === 1);
    watcher.close();
    watcher.close();
    const other = watch(storage, p, await storage.currentRevision()).log;
    await storage.create(`${p}b`, bytes("b"));
    await other.until(() => other.events.length === 1);
    assert.equal(log.events.length, 1);
    assert.deepEqual(log.errors, []);
  });
}

/** What is gone after a compaction. */
function compactionTests(it: SuiteTest): void {
  it("answers Compacted for lists and watches from before the compacted revision", async ({ storage, p }) => {
    const a1 = await storage.create(`${p}a`, bytes("a1"));
    const old = await storage.update(`${p}a`, bytes("a2"), a1);
    await storage.create(`${p}b`, bytes("b1"));
    await storage.delete(`${p}b`);
    const kept = await storage.update(`${p}a`, bytes("a3"), old);
    await storage.create(`${p}c`, bytes("c1"));
    await storage.compact(kept);
    assert.ok((await storage.compactedRevision()) >= kept);

    await rejectsWith(storage.list(p, { revision: old }), "Compacted");
    const stale = watch(storage, p, old).log;
    await stale.until(() => stale.errors.length > 0);
    assert.ok(isStorageError(stale.errors[0], "Compacted"));
    assert.deepEqual(stale.events, []);

    const atKept = await storage.list(p, { revision: kept });
    assert.deepEqual(
      atKept.items.map((i) => [i.key, i.value.toString()]),
      [[`${p}a`, "a3"]],
    );
    assert.deepEqual(
      (await storage.list(p)).items.map((i) => [i.key, i.value.toString()]),
      [
        [`${p}a`, "a3"],
        [`${p}c`, "c1"],
      ],
    );
    const fresh = watch(storage, p, kept).log;
    await storage.create(`${p}marker`, bytes("m"));
    assert.deepEqual(summary(await fresh.untilKey(`${p}marker`)), [`put ${p}c c1`]);
    // The latest version survives compaction and can still be updated and deleted.
    const a = await storage.get(`${p}a`);
    await storage.update(`${p}a`, bytes("a4"), a!.modRevision);
    await storage.create(`${p}b`, bytes("b2"));
    assert.equal(text(await storage.get(`${p}b`)), "b2");
  });
}

/** Racing writers. */
function concurrencyTests(it: SuiteTest): void {
  it("lets exactly one of many racing writers win", async ({ storage, p }) => {
    const creates = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => storage.create(`${p}one`, bytes(`${i}`))),
    );
    assert.equal(creates.filter((r) => r.status === "fulfilled").length, 1);
    assert.ok(creates.every((r) => r.status === "fulfilled" || isStorageError(r.reason, "KeyExists")));

    const base = (await storage.get(`${p}one`))!.modRevision;
    const updates = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => storage.update(`${p}one`, bytes(`u${i}`), base)),
    );
    const winners = updates.flatMap((r, i) => (r.status === "fulfilled" ? [{ i, revision: r.value }] : []));
    assert.equal(winners.length, 1);
    assert.ok(updates.every((r) => r.status === "fulfilled" || isStorageError(r.reason, "Conflict")));
    assert.deepEqual(
      await storage.get(`${p}one`),
      newKeyValue(`${p}one`, bytes(`u${winners[0]!.i}`), base, winners[0]!.revision),
    );
  });

  it("loses no increment under read-modify-write retries", async ({ storage, p }) => {
    const key = `${p}counter`;
    await storage.create(key, bytes("0"));
    const increment = async (): Promise<void> => {
      for (;;) {
        const current = (await storage.get(key))!;
        try {
          await storage.update(key, bytes(String(Number(current.value.toString()) + 1)), current.modRevision);
          return;
        } catch (err) {
          if (!isStorageError(err, "Conflict")) throw err;
        }
      }
    };
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let i = 0; i < 10; i++) await increment();
      }),
    );
    assert.equal(text(await storage.get(key)), "200");
  });

  it("gives parallel creates distinct revisions", async ({ storage, p }) => {
    const revisions = await Promise.all(
      Array.from({ length: 200 }, (_, i) => storage.create(`${p}k${i}`, bytes(`${i}`))),
    );
    assert.equal(new Set(revisions).size, 200);
    const listed = await storage.list(p);
    assert.equal(listed.items.length, 200);
    for (const item of listed.items) {
      assert.equal(item.modRevision, revisions[Number(item.value.toString())]);
    }
  });
}

/** A closed storage: watches end, calls are refused. */
function closeTests(it: SuiteTest): void {
  it("ends open watches without an error", async ({ storage, p, closeStorage }) => {
    const { log, watcher } = watch(storage, p, await storage.currentRevision());
    await storage.create(`${p}a`, bytes("a"));
    await log.until(() => log.events.length === 1);
    await closeStorage();
    await turn();
    assert.equal(log.events.length, 1);
    assert.deepEqual(log.errors, []);
    watcher.close();
    await assert.rejects(storage.create(`${p}b`, bytes("b")));
  });

  // A request still in flight when the server stops must get 503 (retry elsewhere), not 500.
  it("refuses every call after close as Unavailable", async ({ storage, p, closeStorage }) => {
    await storage.create(`${p}a`, bytes("a"));
    await closeStorage();
    await rejectsWith(storage.create(`${p}b`, bytes("b")), "Unavailable");
    await rejectsWith(storage.update(`${p}a`, bytes("a2"), 1), "Unavailable");
    await rejectsWith(storage.delete(`${p}a`), "Unavailable");
    await rejectsWith(storage.list(`${p}`, { revision: 1 }), "Unavailable");
    await rejectsWith(storage.txn([{ type: "create", key: `${p}c`, value: bytes("c") }]), "Unavailable");
    await rejectsWith(storage.currentRevision(), "Unavailable");
  });
}

/** Buffers compare by content once turned into strings. */
function normalize(events: readonly WatchEvent[]): unknown[] {
  const plain = (kv: KeyValue | undefined) => kv && { ...kv, value: kv.value.toString() };
  return events.map((e) => ({ type: e.type, revision: e.revision, kv: plain(e.kv), prevKv: plain(e.prevKv) }));
}
