import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { eventResource } from "../events/event-type.js";
import { AdmissionChain } from "../registry/admission.js";
import { Registry } from "../registry/registry.js";
import type { ApiWatchEvent } from "../registry/store-watch.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { shownEvents, shownItems, shownOrNotFound } from "./reader-filter.js";

const obj = (name: string): KubeObject => ({ apiVersion: "v1", kind: "Event", metadata: { name, namespace: "d" } });

/** Sees the names starting with "a", answering the later objects sooner (out of order). */
const seesA = (delays: Map<string, number>) => (o: KubeObject) =>
  new Promise<boolean>((resolve) =>
    setTimeout(() => resolve((o.metadata.name ?? "").startsWith("a")), delays.get(o.metadata.name ?? "") ?? 0),
  );

describe("a kind's readerFilter on the generic reads", () => {
  it("a list keeps what the reader sees, in order, and drops remainingItemCount", async () => {
    const list = {
      apiVersion: "v1",
      kind: "EventList",
      metadata: { resourceVersion: "7", continue: "c", remainingItemCount: 3 },
      items: [obj("a1"), obj("b1"), obj("a2")],
    };
    const shown = await shownItems(list, seesA(new Map([["a1", 5]])));
    assert.deepEqual(
      shown.items.map((o) => o.metadata.name),
      ["a1", "a2"],
    );
    assert.deepEqual(shown.metadata, { resourceVersion: "7", continue: "c" });
  });

  it("a get of what the reader may not see is 404, as if it were not there", async () => {
    const filter = seesA(new Map());
    assert.equal((await shownOrNotFound(eventResource, filter, obj("a1"))).metadata.name, "a1");
    await assert.rejects(
      shownOrNotFound(eventResource, filter, obj("b1")),
      (e: unknown) => e instanceof ApiError && e.code === 404 && /events "b1" not found/.test(e.message),
    );
  });

  it("a watch sends what the reader sees in the order it happened, bookmarks too, then ends", async () => {
    const sent: string[] = [];
    let ended: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      ended = resolve;
    });
    const sink = shownEvents(
      {
        send: (e: ApiWatchEvent) => sent.push(`${e.type}:${(e.object as KubeObject).metadata.name ?? ""}`),
        end: () => ended(),
      },
      seesA(new Map([["a1", 20]])),
    );
    sink.send({ type: "ADDED", object: obj("a1") });
    sink.send({ type: "ADDED", object: obj("b1") });
    sink.send({ type: "BOOKMARK", object: obj("") });
    sink.send({ type: "MODIFIED", object: obj("a2") });
    sink.end();
    await done; // end comes after every send before it
    assert.deepEqual(sent, ["ADDED:a1", "BOOKMARK:", "MODIFIED:a2"]);
  });

  it("the Registry refuses a readerFilter on a kind that can be written (the filter would be bypassed)", async () => {
    const storage = openSqliteStorage(":memory:");
    const readerFilter = () => async () => true;
    assert.throws(
      () =>
        new Registry(storage, [{ ...eventResource, verbs: ["get", "patch"], readerFilter }], new AdmissionChain([])),
      /a kind with a readerFilter serves only get, list, watch/,
    );
    new Registry(storage, [{ ...eventResource, readerFilter }], new AdmissionChain([]));
    await storage.close();
  });
});
