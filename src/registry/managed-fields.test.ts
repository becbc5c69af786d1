import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../api/object.js";
import { ownedPart } from "./managed-fields.js";

const withStatus = { hasStatus: true };
const withoutStatus = { hasStatus: false };

describe("ownedPart", () => {
  const obj = JSON.parse(
    JSON.stringify({
      apiVersion: "management.platform/v1",
      kind: "Team",
      spec: { displayName: "x" },
      metadata: {
        name: "a",
        namespace: "n",
        uid: "u",
        resourceVersion: "7",
        generation: 2,
        creationTimestamp: "t",
        managedFields: [{}],
        selfLink: "s",
        deletionTimestamp: "d",
        deletionGracePeriodSeconds: 3,
        generateName: "g",
        labels: { l: "1" },
        annotations: { a: "2" },
        finalizers: ["f"],
      },
      status: { phase: "Ready" },
      extra: 1,
    }),
  ) as KubeObject;

  it("keeps what managers own, in the object's key order, without the server's metadata", () => {
    const owned = ownedPart(obj, withStatus, "");
    assert.deepEqual(owned, {
      spec: { displayName: "x" },
      extra: 1,
      metadata: { labels: { l: "1" }, annotations: { a: "2" }, finalizers: ["f"] },
    });
    assert.deepEqual(Object.keys(owned), ["spec", "extra", "metadata"]);
    assert.deepEqual(Object.keys(owned.metadata as object), ["labels", "annotations", "finalizers"]);
  });

  it("owns status only where the kind has no status subresource, and only status on that subresource", () => {
    assert.deepEqual(ownedPart(obj, withoutStatus, "").status, { phase: "Ready" });
    assert.deepEqual(ownedPart(obj, withStatus, "status"), { status: { phase: "Ready" } });
    assert.deepEqual(ownedPart({ ...obj, status: undefined }, withStatus, "status"), {});
    assert.deepEqual(ownedPart(undefined, withStatus, ""), {});
  });

  it("leaves out metadata with nothing owned, and keeps a field named __proto__ as a field", () => {
    const bare = JSON.parse('{"kind":"Team","metadata":{"name":"a"},"spec":{},"__proto__":{"x":1}}') as KubeObject;
    const owned = ownedPart(bare, withStatus, "");
    assert.deepEqual(Object.keys(owned), ["spec", "__proto__"]);
    assert.equal(Object.getPrototypeOf(owned), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(owned, "__proto__")?.value, { x: 1 });
    const meta = JSON.parse('{"metadata":{"__proto__":{"y":2}}}') as KubeObject;
    const ownedMeta = ownedPart(meta, withStatus, "").metadata as object;
    assert.deepEqual(Object.keys(ownedMeta), ["__proto__"]);
    assert.equal(Object.getPrototypeOf(ownedMeta), Object.prototype);
  });
});
