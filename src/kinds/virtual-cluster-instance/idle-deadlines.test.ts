import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../api/object.js";
import { idleVerdict } from "./idle-deadlines.js";

const CREATED = Date.parse("2026-12-07T01:00:00Z");
const S = 1000;

function instance(spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: "management.platform/v1",
    kind: "VirtualClusterInstance",
    metadata: { name: "dev", namespace: "p-web", creationTimestamp: "2026-12-07T01:00:00Z" },
    spec,
    status,
  };
}

describe("what an instance's idle time calls for", () => {
  it("without sleepAfter or deleteAfter, nothing, and no deadline to look at again", () => {
    assert.deepEqual(idleVerdict(instance({}), CREATED + 10_000 * S), { action: "none" });
    assert.deepEqual(idleVerdict(instance({ sleepAfter: 0, deleteAfter: 0 }), CREATED + 10_000 * S), {
      action: "none",
    });
  });

  it("idle counts from creation until activity is recorded, then from the last activity", () => {
    const fresh = instance({ sleepAfter: 60 });
    assert.deepEqual(idleVerdict(fresh, CREATED + 59 * S), { action: "none", recheckInMs: 1 * S });
    assert.deepEqual(idleVerdict(fresh, CREATED + 60 * S), { action: "sleep", idleSeconds: 60 });
    const used = instance({ sleepAfter: 60 }, { lastActivity: "2026-12-07T01:00:30Z" });
    assert.deepEqual(idleVerdict(used, CREATED + 60 * S), { action: "none", recheckInMs: 30 * S });
    assert.deepEqual(idleVerdict(used, CREATED + 95 * S), { action: "sleep", idleSeconds: 65 });
  });

  it("an instance asleep already is not put to sleep again; deleteAfter still counts", () => {
    const asleep = instance(
      { sleepAfter: 60, deleteAfter: 600 },
      { sleep: { since: "2026-12-07T01:01:00Z", reason: "Idle" } },
    );
    assert.deepEqual(idleVerdict(asleep, CREATED + 120 * S), { action: "none", recheckInMs: 480 * S });
    assert.deepEqual(idleVerdict(asleep, CREATED + 600 * S), { action: "delete", idleSeconds: 600 });
  });

  it("past both deadlines, deletion wins; the nearer deadline is the one looked at again", () => {
    const both = instance({ sleepAfter: 600, deleteAfter: 60 });
    assert.deepEqual(idleVerdict(both, CREATED + 30 * S), { action: "none", recheckInMs: 30 * S });
    assert.deepEqual(idleVerdict(both, CREATED + 700 * S), { action: "delete", idleSeconds: 700 });
  });
});
