import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runStorageSuite } from "../../testing/storage-suite.js";
import { isStorageError } from "../errors.js";
import { compactionTarget, type RevisionSample } from "./auto-compaction.js";
import { openSqliteStorage } from "./sqlite-storage.js";

async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "platform-sqlite-"));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

runStorageSuite("sqlite (file)", async () => {
  const { dir, remove } = await tempDir();
  return { storage: openSqliteStorage(join(dir, "db.sqlite")), cleanup: remove };
});

runStorageSuite("sqlite (:memory:)", async () => ({
  storage: openSqliteStorage(":memory:"),
  cleanup: async () => {},
}));

const bytes = (s: string): Buffer => Buffer.from(s);

describe("sqlite storage", () => {
  test("group commit: writes of one turn share one COMMIT but get distinct revisions", async () => {
    const storage = openSqliteStorage(":memory:");
    try {
      const commitsBefore = storage.commits;
      const revisions = await Promise.all(
        Array.from({ length: 100 }, (_, i) => storage.create(`/k/${i}`, bytes(`${i}`))),
      );
      assert.equal(storage.commits, commitsBefore + 1);
      assert.deepEqual(
        [...revisions].sort((a, b) => a - b),
        Array.from({ length: 100 }, (_, i) => i + 1),
      );
      assert.deepEqual(
        revisions,
        [...revisions].sort((a, b) => a - b),
        "revisions follow issue order",
      );
    } finally {
      await storage.close();
    }
  });

  test("group commit: a failing write or txn rejects alone, the rest of the batch commits", async () => {
    const storage = openSqliteStorage(":memory:");
    try {
      const base = await storage.create("/k/existing", bytes("e"));
      const commitsBefore = storage.commits;
      const results = await Promise.allSettled([
        storage.create("/k/a", bytes("a")),
        storage.create("/k/existing", bytes("dup")),
        storage.txn([
          { type: "create", key: "/k/t1", value: bytes("t1") },
          { type: "update", key: "/k/existing", value: bytes("stale"), expectedModRevision: base - 1 },
        ]),
        storage.txn([
          { type: "create", key: "/k/t2", value: bytes("t2") },
          { type: "update", key: "/k/existing", value: bytes("e2"), expectedModRevision: base },
        ]),
        storage.update("/k/existing", bytes("late"), base),
        storage.create("/k/b", bytes("b")),
      ]);
      assert.equal(storage.commits, commitsBefore + 1);
      assert.deepEqual(
        results.map((r) => r.status),
        ["fulfilled", "rejected", "rejected", "fulfilled", "rejected", "fulfilled"],
      );
      assert.ok(results[1]!.status === "rejected" && isStorageError(results[1]!.reason, "KeyExists"));
      assert.ok(results[2]!.status === "rejected" && isStorageError(results[2]!.reason, "Conflict"));
      assert.ok(results[4]!.status === "rejected" && isStorageError(results[4]!.reason, "Conflict"));
      const listed = await storage.list("/k/");
      assert.deepEqual(
        listed.items.map((i) => [i.key, i.value.toString()]),
        [
          ["/k/a", "a"],
          ["/k/b", "b"],
          ["/k/existing", "e2"],
          ["/k/t2", "t2"],
        ],
      );
      // Rolled-back writes leave no hole: revisions stay dense apart from multi-op txns.
      assert.equal(await storage.currentRevision(), base + 1 + 2 + 1);
    } finally {
      await storage.close();
    }
  });

  test("a paged list counts the remaining keys unless countRemaining is false", async () => {
    const storage = openSqliteStorage(":memory:");
    try {
      await Promise.all(Array.from({ length: 10 }, (_, i) => storage.create(`/p/${i}`, bytes(`${i}`))));
      const counted = await storage.list("/p/", { limit: 3 });
      assert.equal(counted.more, true);
      assert.equal(counted.remaining, 7);
      const uncounted = await storage.list("/p/", { limit: 3, countRemaining: false });
      assert.equal(uncounted.more, true);
      assert.equal(uncounted.remaining, 0);
      assert.deepEqual(
        uncounted.items.map((kv) => kv.key),
        counted.items.map((kv) => kv.key),
      );
    } finally {
      await storage.close();
    }
  });

  test("data, revisions and the compacted revision survive close and reopen", async () => {
    const { dir, remove } = await tempDir();
    const path = join(dir, "db.sqlite");
    try {
      const first = openSqliteStorage(path);
      const a = await first.create("/k/a", bytes("a1"));
      await first.update("/k/a", bytes("a2"), a);
      const b = await first.create("/k/b", bytes("b"));
      await first.create("/k/gone", bytes("g"));
      await first.compact(b);
      const last = (await first.delete("/k/gone")).revision;
      // Compact the newest row away too: the revision must still not go back on reopen.
      await first.compact(last);
      await first.close();

      const second = openSqliteStorage(path);
      try {
        assert.equal(await second.currentRevision(), last);
        assert.equal(await second.compactedRevision(), last);
        assert.equal((await second.get("/k/a"))?.value.toString(), "a2");
        assert.equal(await second.get("/k/gone"), undefined);
        await assert.rejects(second.list("/k/", { revision: b }), (err) => isStorageError(err, "Compacted"));
        const next = await second.create("/k/c", bytes("c"));
        assert.equal(next, last + 1);
        assert.equal((await second.create("/k/gone", bytes("again"))) > next, true);
      } finally {
        await second.close();
      }
    } finally {
      await remove();
    }
  });

  test("close commits writes already accepted", async () => {
    const { dir, remove } = await tempDir();
    const path = join(dir, "db.sqlite");
    try {
      const first = openSqliteStorage(path);
      const pending = first.create("/k/a", bytes("a"));
      await first.close();
      assert.equal(await pending, 1);
      const second = openSqliteStorage(path);
      assert.equal((await second.get("/k/a"))?.value.toString(), "a");
      await second.close();
    } finally {
      await remove();
    }
  });

  test("automatic compaction keeps the configured history", async () => {
    const storage = openSqliteStorage(":memory:", { compactMinHistory: 5 });
    try {
      let rev = await storage.create("/k/a", bytes("0"));
      for (let i = 1; i < 20; i++) rev = await storage.update("/k/a", bytes(String(i)), rev);
      // minAgeMs 0: only the revision count limits it; the first tick runs at once.
      const stop = storage.startAutoCompaction({ intervalMs: 3_600_000, minAgeMs: 0 });
      stop();
      assert.equal(await storage.compactedRevision(), rev - 5);
      assert.equal((await storage.list("/k/", { revision: rev - 5 })).items[0]?.value.toString(), "14");
    } finally {
      await storage.close();
    }
  });

  test("a group commit reaches a watcher as one batch, in revision order, without its failed writes", async () => {
    const storage = openSqliteStorage(":memory:");
    try {
      await storage.create("/k/taken", bytes("0"));
      const batches: [string, number][][] = [];
      storage.watch(
        "/k/",
        { afterRevision: await storage.currentRevision() },
        { onEvents: (e) => batches.push(e.map((x) => [x.kv.key, x.revision])), onError: () => {} },
      );
      // Issued in one turn: one COMMIT; the second write fails (the key exists) and has no event.
      const writes = await Promise.allSettled([
        storage.create("/k/a", bytes("a")),
        storage.create("/k/taken", bytes("again")),
        storage.txn([
          { type: "create", key: "/k/b", value: bytes("b") },
          { type: "create", key: "/k/c", value: bytes("c") },
        ]),
      ]);
      assert.deepEqual(
        writes.map((w) => w.status),
        ["fulfilled", "rejected", "fulfilled"],
      );
      await new Promise((resolve) => setImmediate(resolve));
      const a = (writes[0] as PromiseFulfilledResult<number>).value;
      const bc = (writes[2] as PromiseFulfilledResult<{ revision: number }>).value.revision;
      assert.deepEqual(batches, [
        [
          ["/k/a", a],
          ["/k/b", bc],
          ["/k/c", bc],
        ],
      ]);
    } finally {
      await storage.close();
    }
  });

  test("a watch whose callback throws ends with onError; other watches go on", async () => {
    const storage = openSqliteStorage(":memory:");
    try {
      const errors: Error[] = [];
      let calls = 0;
      storage.watch(
        "/k/",
        { afterRevision: 0 },
        {
          onEvents: () => {
            calls++;
            throw new Error("consumer bug");
          },
          onError: (err) => errors.push(err),
        },
      );
      const seen: string[] = [];
      storage.watch(
        "/k/",
        { afterRevision: 0 },
        { onEvents: (e) => seen.push(...e.map((x) => x.kv.key)), onError: () => {} },
      );
      await storage.create("/k/a", bytes("a"));
      await storage.create("/k/b", bytes("b"));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(calls, 1);
      assert.deepEqual(
        errors.map((e) => e.message),
        ["consumer bug"],
      );
      assert.deepEqual(seen, ["/k/a", "/k/b"]);
    } finally {
      await storage.close();
    }
  });

  test("compactionTarget honours both the revision count and the age", () => {
    const samples: RevisionSample[] = [
      { at: 0, revision: 100 },
      { at: 60_000, revision: 500 },
      { at: 120_000, revision: 900 },
    ];
    // Nothing is 5 minutes old yet.
    assert.equal(compactionTarget([...samples], 120_000, 1000, 10, 300_000), 0);
    // At 6 minutes, the sample at 1 minute is old enough: history up to 500 may go.
    const kept = [...samples];
    assert.equal(compactionTarget(kept, 360_000, 1000, 10, 300_000), 500);
    assert.deepEqual(
      kept.map((s) => s.revision),
      [500, 900],
    );
    // The revision count can hold it back further.
    assert.equal(compactionTarget([...samples], 360_000, 1000, 800, 300_000), 200);
    assert.equal(compactionTarget([...samples], 360_000, 1000, 5000, 300_000), 0);
  });
});
