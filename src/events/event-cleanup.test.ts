import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import { AdmissionChain } from "../registry/admission.js";
import { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import { SharedInformers } from "../registry/shared-informers.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { EventCleanup } from "./event-cleanup.js";
import { StoreEventRecorder } from "./event-recorder.js";
import { eventResource } from "./event-type.js";
import { createPlatformEvents } from "./platform-events.js";

const user = (name: string, uid: string): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind: "User",
  metadata: { name, uid },
});

describe("Event expiry and counting", () => {
  it("keeps an Event for the TTL after it last happened, then deletes it", async () => {
    const storage = openSqliteStorage(":memory:");
    const { store } = createPlatformEvents(
      new Registry(storage, [eventResource], new AdmissionChain([])).store("events"),
      new SharedInformers(new Registry(storage, [], new AdmissionChain([]))),
      (e) => {
        throw e;
      },
    );
    let now = new Date("2026-01-01T10:00:00Z");
    const recorder = new StoreEventRecorder(
      store,
      (e) => assert.fail(String(e)),
      () => now,
    );
    recorder.record(user("old", "u1"), "Normal", "Seen", "long ago");
    now = new Date("2026-01-01T10:50:00Z");
    recorder.record(user("recent", "u2"), "Warning", "Seen", "a moment ago");
    await recorder.flush();
    const cleanup = new EventCleanup(store, { ttlMs: 60 * 60_000, now: () => new Date("2026-01-01T11:30:00Z") });
    assert.equal(await cleanup.sweep(), 1);
    const left = await store.list(systemContext(), undefined, {});
    assert.deepEqual(
      left.items.map((e) => (e.involvedObject as { name: string }).name),
      ["recent"],
    );
    // Happening again renews it: counted, and kept an hour from then.
    now = new Date("2026-01-01T11:40:00Z");
    recorder.record(user("recent", "u2"), "Warning", "Seen", "a moment ago");
    await recorder.flush();
    const later = new EventCleanup(store, { ttlMs: 60 * 60_000, now: () => new Date("2026-01-01T12:20:00Z") });
    assert.equal(await later.sweep(), 0);
    const [event] = (await store.list(systemContext(), undefined, {})).items;
    assert.equal(event?.count, 2);
    assert.equal(event?.firstTimestamp, "2026-01-01T10:50:00Z");
    assert.equal(event?.lastTimestamp, "2026-01-01T11:40:00Z");
    assert.equal(event?.apiVersion, "v1");
    await storage.close();
  });
});
