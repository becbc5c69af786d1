import assert from "node:assert/strict";
import { fsync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { isStorageError } from "../errors.js";
import type { WatchEvent } from "../interface.js";
import type { WalSync } from "./durable-wal.js";
import { openSqliteStorage } from "./sqlite-storage.js";

/** A WAL fsync that waits until the test lets it go (or fails it). */
class HeldSync {
  private held: Array<{ fd: number; done: (err: NodeJS.ErrnoException | null) => void }> = [];
  calls = 0;
  readonly sync: WalSync = (fd, done) => {
    this.calls++;
    this.held.push({ fd, done });
  };
  /** Lets every held fsync run for real. */
  release(): void {
    for (const { fd, done } of this.held.splice(0)) fsync(fd, done);
  }
  fail(): void {
    for (const { done } of this.held.splice(0)) done(Object.assign(new Error("EIO: i/o error"), { code: "EIO" }));
  }
  get pending(): number {
    return this.held.length;
  }
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe("sqlite storage: a write counts only once its WAL fsync returned", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "platform-wal-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("until then it is not acknowledged, not readable, not listed and not watched", async () => {
    const held = new HeldSync();
    const storage = openSqliteStorage(join(dir, "held.db"), { walSync: held.sync });
    try {
      const seen: WatchEvent[] = [];
      storage.watch("/k/", { afterRevision: 0 }, { onEvents: (e) => seen.push(...e), onError: () => {} });
      let acknowledged = false;
      const write = storage.create("/k/a", Buffer.from("a")).then((rev) => {
        acknowledged = true;
        return rev;
      });
      await settle();
      assert.equal(held.pending, 1, "the commit asked for an fsync");
      assert.equal(acknowledged, false);
      assert.equal(await storage.get("/k/a"), undefined);
      assert.equal((await storage.list("/k/")).items.length, 0);
      assert.equal(await storage.currentRevision(), 0);
      assert.equal(seen.length, 0);
      // A watch started now replays only what is durable: the write arrives once, when published.
      const late: WatchEvent[] = [];
      storage.watch("/k/", { afterRevision: 0 }, { onEvents: (e) => late.push(...e), onError: () => {} });

      held.release();
      const revision = await write;
      assert.equal((await storage.get("/k/a"))?.modRevision, revision);
      assert.equal(await storage.currentRevision(), revision);
      assert.deepEqual(
        seen.map((e) => e.kv.key),
        ["/k/a"],
      );
      assert.deepEqual(
        late.map((e) => e.kv.key),
        ["/k/a"],
      );
    } finally {
      held.release();
      await storage.close();
    }
  });

  it("writes issued while an fsync runs commit together when it returns, and are acknowledged in order", async () => {
    const held = new HeldSync();
    const storage = openSqliteStorage(join(dir, "order.db"), { walSync: held.sync });
    try {
      const order: string[] = [];
      const first = storage.create("/k/1", Buffer.from("1")).then(() => order.push("1"));
      await settle();
      const commits = storage.commits;
      const second = storage.create("/k/2", Buffer.from("2")).then(() => order.push("2"));
      const third = storage.create("/k/3", Buffer.from("3")).then(() => order.push("3"));
      await settle();
      // Queued behind the held fsync: not committed yet, no second fsync.
      assert.equal(storage.commits, commits);
      assert.equal(held.calls, 1);
      held.release();
      await first;
      await settle();
      assert.equal(storage.commits, commits + 1, "what queued meanwhile commits in one transaction");
      assert.equal(held.calls, 2, "and gets one more fsync");
      assert.deepEqual(order, ["1"]);
      held.release();
      await Promise.all([second, third]);
      assert.deepEqual(order, ["1", "2", "3"]);
    } finally {
      held.release();
      await storage.close();
    }
  });

  it("a failed fsync rejects the waiting writes as unavailable and refuses later ones", async () => {
    const held = new HeldSync();
    const storage = openSqliteStorage(join(dir, "failing.db"), { walSync: held.sync });
    try {
      const write = storage.create("/k/x", Buffer.from("x"));
      await settle();
      held.fail();
      await assert.rejects(write, (err) => isStorageError(err, "Unavailable") && /fsync failed/.test(String(err)));
      await assert.rejects(storage.create("/k/y", Buffer.from("y")), (err) => isStorageError(err, "Unavailable"));
    } finally {
      await storage.close();
    }
  });

  it("writes queued behind a failing fsync are refused too, never left waiting", async () => {
    const held = new HeldSync();
    const storage = openSqliteStorage(join(dir, "failing-queued.db"), { walSync: held.sync });
    try {
      const write = storage.create("/k/x", Buffer.from("x"));
      await settle();
      const queued = storage.create("/k/q", Buffer.from("q"));
      await settle();
      held.fail();
      await assert.rejects(write, (err) => isStorageError(err, "Unavailable"));
      await assert.rejects(queued, (err) => isStorageError(err, "Unavailable"));
    } finally {
      await storage.close();
    }
  });

  it("a batch of writes that all failed needs no fsync", async () => {
    const held = new HeldSync();
    const storage = openSqliteStorage(join(dir, "nothing.db"), { walSync: held.sync });
    try {
      const write = storage.create("/k/z", Buffer.from("z"));
      await settle();
      held.release();
      await write;
      const calls = held.calls;
      await assert.rejects(storage.create("/k/z", Buffer.from("again")), (err) => isStorageError(err, "KeyExists"));
      assert.equal(held.calls, calls);
    } finally {
      await storage.close();
    }
  });

  it("close waits for the fsync of what it commits, then acknowledges it", async () => {
    const storage = openSqliteStorage(join(dir, "close.db"));
    const write = storage.create("/k/c", Buffer.from("c"));
    await storage.close();
    assert.equal(await write, 1);
    const reopened = openSqliteStorage(join(dir, "close.db"));
    try {
      assert.equal((await reopened.get("/k/c"))?.value.toString(), "c");
    } finally {
      await reopened.close();
    }
  });
});
