import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { afterEach, describe, it, mock } from "node:test";
import { fileURLToPath } from "node:url";
import type { ControllerLog } from "./controller-log.js";
import { ControllerWiring, type ControllerWiringOptions } from "./controller-wiring.js";

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** An informer as the wiring sees it: synced when the test says, and events the test sends. */
function fakeInformer() {
  const handlers = new Set<(key: string) => void>();
  const sync = deferred();
  return {
    synced: () => sync.promise,
    sync: () => sync.resolve(),
    onChange(handler: (key: string) => void): () => void {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    emit: (key: string) => {
      for (const h of handlers) h(key);
    },
    get subscribers() {
      return handlers.size;
    },
  };
}

/** A few turns of the event loop: what the wiring would do unasked it has done by then. */
async function turns(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

function capturedLog() {
  const errors: Array<{ obj: unknown; msg: string }> = [];
  const log: ControllerLog = { error: (obj, msg) => errors.push({ obj, msg }), warn: () => {} };
  return { log, errors };
}

/** A wiring over one fake informer that records the keys it processes and how often keys() was asked. */
function wired(overrides: Partial<ControllerWiringOptions> = {}) {
  const informer = fakeInformer();
  const processed: string[] = [];
  const counts = { keys: 0 };
  const { log, errors } = capturedLog();
  const wiring = new ControllerWiring({
    controller: "test-controller",
    log,
    process: async (key) => {
      processed.push(key);
    },
    informers: [informer],
    subscribe: (queue) => [informer.onChange((key) => queue.add(key))],
    keys: () => {
      counts.keys++;
      return ["a", "b"];
    },
    ...overrides,
  });
  return { wiring, informer, processed, counts, errors };
}

describe("ControllerWiring", () => {
  afterEach(() => mock.timers.reset());

  it("queues every key once the informers have synced, not before", async () => {
    const { wiring, informer, processed, counts } = wired();
    const started = wiring.start();
    await turns();
    assert.equal(counts.keys, 0, "no key before the informers synced");
    assert.deepEqual(processed, []);
    informer.sync();
    await started;
    await wiring.settled();
    assert.deepEqual(processed, ["a", "b"]);
    await wiring.stop();
  });

  it("queues keys read asynchronously (from storage)", async () => {
    const read = deferred<string[]>();
    const { wiring, informer, processed } = wired({ keys: () => read.promise });
    informer.sync();
    const started = wiring.start();
    await turns();
    assert.deepEqual(processed, []);
    read.resolve(["guard-1", "guard-2"]);
    await started;
    await wiring.settled();
    assert.deepEqual(processed, ["guard-1", "guard-2"]);
    await wiring.stop();
  });

  it("with no informers and keys at hand, every key is queued before start() returns", async () => {
    const { wiring, processed } = wired({ informers: undefined });
    void wiring.start();
    // settled() asked at once, as a caller that does not wait for start() would.
    await wiring.settled();
    assert.deepEqual(processed, ["a", "b"]);
    await wiring.stop();
  });

  it("queues the keys the event handlers add", async () => {
    const { wiring, informer, processed } = wired({ keys: () => [] });
    informer.sync();
    await wiring.start();
    informer.emit("changed");
    await wiring.settled();
    assert.deepEqual(processed, ["changed"]);
    await wiring.stop();
  });

  it("resyncs every resyncMs: every key queued again", async () => {
    mock.timers.enable({ apis: ["setInterval"] });
    const { wiring, informer, processed, counts } = wired({ resyncMs: 1000 });
    informer.sync();
    await wiring.start();
    await wiring.settled();
    assert.deepEqual(processed, ["a", "b"]);
    mock.timers.tick(999);
    assert.equal(counts.keys, 1);
    mock.timers.tick(1);
    assert.equal(counts.keys, 2);
    await wiring.settled();
    assert.deepEqual(processed, ["a", "b", "a", "b"]);
    await wiring.stop();
  });

  it("without resyncMs, never resyncs", async () => {
    mock.timers.enable({ apis: ["setInterval"] });
    const { wiring, informer, counts } = wired();
    informer.sync();
    await wiring.start();
    mock.timers.tick(24 * 60 * 60 * 1000);
    assert.equal(counts.keys, 1);
    await wiring.stop();
  });

  it("stop removes the handlers, clears the resync timer and processes nothing more", async () => {
    mock.timers.enable({ apis: ["setInterval"] });
    const { wiring, informer, processed, counts } = wired({ resyncMs: 1000 });
    informer.sync();
    await wiring.start();
    await wiring.settled();
    assert.equal(informer.subscribers, 1);
    assert.equal(wiring.running, true);
    await wiring.stop();
    assert.equal(wiring.running, false);
    assert.equal(informer.subscribers, 0);
    informer.emit("after-stop");
    mock.timers.tick(5000);
    await turns();
    assert.equal(counts.keys, 1, "no resync after stop");
    assert.deepEqual(processed, ["a", "b"]);
  });

  it("stopped while waiting for the informers, it queues nothing and arms no resync", async () => {
    mock.timers.enable({ apis: ["setInterval"] });
    const { wiring, informer, processed, counts } = wired({ resyncMs: 1000 });
    const started = wiring.start();
    await wiring.stop();
    informer.sync();
    await started;
    mock.timers.tick(5000);
    await turns();
    assert.equal(counts.keys, 0);
    assert.deepEqual(processed, []);
  });

  it("settled waits for the key in flight", async () => {
    const gate = deferred();
    const { wiring, informer, processed } = wired({
      keys: () => ["slow"],
      process: async (key) => {
        await gate.promise;
        processed.push(key);
      },
    });
    informer.sync();
    await wiring.start();
    let settled = false;
    const waiting = wiring.settled().then(() => {
      settled = true;
    });
    await turns();
    assert.equal(settled, false, "settled while the key is processed");
    gate.resolve();
    await waiting;
    assert.deepEqual(processed, ["slow"]);
    await wiring.stop();
  });

  it("a start whose keys cannot be read fails, is undone, and a later start begins afresh", async () => {
    let fail = true;
    const { wiring, informer, processed } = wired({
      keys: async () => {
        if (fail) throw new Error("storage unavailable");
        return ["a"];
      },
    });
    informer.sync();
    await assert.rejects(wiring.start(), /storage unavailable/);
    assert.equal(wiring.running, false);
    assert.equal(informer.subscribers, 0, "the failed start's handlers are removed");
    fail = false;
    await wiring.start();
    assert.equal(informer.subscribers, 1);
    await wiring.settled();
    assert.deepEqual(processed, ["a"]);
    await wiring.stop();
  });

  it("a resync whose keys cannot be read is logged, and the next resync queues them", async () => {
    mock.timers.enable({ apis: ["setInterval"] });
    let resyncs = 0;
    const { wiring, informer, processed, errors } = wired({
      resyncMs: 1000,
      keys: () => {
        if (++resyncs === 2) throw new Error("storage unavailable");
        return ["a"];
      },
    });
    informer.sync();
    await wiring.start();
    await wiring.settled();
    mock.timers.tick(1000);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.msg, "test-controller could not read its keys to resync; the next resync tries again");
    mock.timers.tick(1000);
    await wiring.settled();
    assert.deepEqual(processed, ["a", "a"]);
    await wiring.stop();
  });

  it("a second start while running adds no second set of handlers", async () => {
    const { wiring, informer } = wired();
    informer.sync();
    await wiring.start();
    await wiring.start();
    assert.equal(informer.subscribers, 1);
    await wiring.stop();
  });
});

// One wiring of a controller's queue (docs/architecture.md, "Controllers"), checked on the sources.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function runtimeSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return runtimeSources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The files that make a work queue of their own, and why the wiring does not fit them. */
const OWN_QUEUES: Record<string, string> = {
  "src/controllers/controller-wiring.ts": "the wiring itself",
  "src/controllers/garbage-collector/garbage-collector.ts":
    "its keys are not strings of one kind: it rebuilds an owner index of every kind at start, in the pass that queues them",
  "src/testing/kube/kubelet-stand-in.ts": "test support: a queue of pods, no informers of the platform",
};

describe("controllers' wiring", () => {
  it("only controller-wiring.ts makes a work queue for a controller (and the files named with a reason)", () => {
    const own = runtimeSources(join(root, "src"))
      .filter((file) => readFileSync(file, "utf8").includes("new WorkQueue"))
      .map((file) => relative(root, file))
      .sort();
    assert.deepEqual(own, Object.keys(OWN_QUEUES).sort());
  });

  it("only controller-wiring.ts arms a resync over a work queue", () => {
    const byHand = runtimeSources(join(root, "src"))
      .filter((file) => {
        const text = readFileSync(file, "utf8");
        return text.includes("new WorkQueue") && text.includes("setInterval(");
      })
      .map((file) => relative(root, file));
    assert.deepEqual(byHand, ["src/controllers/controller-wiring.ts"]);
  });
});
