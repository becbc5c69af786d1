import assert from "node:assert/strict";
import { test } from "node:test";
import { type LeaderElector, type LeadershipCallbacks, SingleReplicaElector } from "../storage/leader-election.js";
import { type Controller, ControllerManager } from "./controller-manager.js";

/** An elector the test drives by hand. */
class ManualElector implements LeaderElector {
  readonly identity = "manual";
  isLeader = false;
  private callbacks: LeadershipCallbacks | undefined;
  start(callbacks: LeadershipCallbacks): void {
    this.callbacks = callbacks;
  }
  win(): void {
    this.isLeader = true;
    this.callbacks?.onElected();
  }
  lose(): void {
    this.isLeader = false;
    this.callbacks?.onLost();
  }
  async stop(): Promise<void> {
    if (this.isLeader) this.lose();
  }
}

function recorder(name: string, log: string[]): Controller {
  return { name, start: () => void log.push(`start ${name}`), stop: () => void log.push(`stop ${name}`) };
}

test("controllers run only while the replica leads", async () => {
  const log: string[] = [];
  const elector = new ManualElector();
  const manager = new ControllerManager(elector);
  manager.register(recorder("gc", log));
  manager.start();
  await manager.settled();
  assert.deepEqual(log, []);
  elector.win();
  manager.register(recorder("expiry", log)); // registered while leading: starts at once
  await manager.settled();
  assert.deepEqual(manager.runningControllers().sort(), ["expiry", "gc"]);
  elector.lose();
  await manager.settled();
  assert.deepEqual(manager.runningControllers(), []);
  elector.win();
  await manager.settled();
  assert.deepEqual(manager.runningControllers().sort(), ["expiry", "gc"]);
  await manager.stop();
  assert.deepEqual(log, [
    "start gc",
    "start expiry",
    "stop expiry",
    "stop gc",
    "start gc",
    "start expiry",
    "stop expiry",
    "stop gc",
  ]);
});

test("a controller that fails to start is reported and the others still run", async () => {
  const log: string[] = [];
  const failures: string[] = [];
  const manager = new ControllerManager(new SingleReplicaElector(), { onError: (name) => failures.push(name) });
  manager.register({ name: "broken", start: () => Promise.reject(new Error("no")), stop: () => {} });
  manager.register(recorder("ok", log));
  manager.start();
  await manager.settled();
  assert.deepEqual(failures, ["broken"]);
  assert.deepEqual(manager.runningControllers(), ["ok"]);
  await manager.stop();
  assert.deepEqual(log, ["start ok", "stop ok"]);
});
