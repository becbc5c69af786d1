import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import { eventResource } from "../events/event-type.js";
import { AdmissionChain } from "../registry/admission.js";
import { Registry } from "../registry/registry.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { gadgetKind } from "../testing/gadget-kind.js";
import { HotPathCache } from "./hot-path-cache.js";
import { resolveResourcePath } from "./resource-path.js";

describe("HotPathCache (the fast GET path's parsed paths)", () => {
  const storage = openSqliteStorage(":memory:");
  after(() => storage.close());
  const registry = new Registry(storage, [gadgetKind(), eventResource], new AdmissionChain([]));

  it("resolves as resolveResourcePath does, with the GET attributes and the storage key", () => {
    const cache = new HotPathCache(registry);
    for (const rest of ["gadgets/g1", "namespaces/ns1/events/e1", "events"]) {
      const hot = cache.resolve(rest);
      const direct = resolveResourcePath(registry, rest);
      assert.equal(hot.path.rt, direct.rt);
      assert.equal(hot.path.namespace, direct.namespace);
      assert.equal(hot.path.name, direct.name);
      assert.equal(hot.getAttributes.verb, "get");
      assert.equal(hot.getAttributes.resource, direct.rt.plural);
      assert.equal(hot.getAttributes.namespace, direct.namespace ?? "");
      assert.equal(hot.getAttributes.name, direct.name ?? "");
      assert.equal(hot.key, direct.name === undefined ? undefined : direct.store.key(direct.namespace, direct.name));
    }
  });

  it("answers a path it has seen with the same entry, and never lets a caller change it", () => {
    const cache = new HotPathCache(registry);
    const first = cache.resolve("gadgets/g1");
    assert.equal(cache.resolve("gadgets/g1"), first);
    assert.notEqual(cache.resolve("gadgets/g2"), first);
    assert.throws(() => {
      (first.getAttributes as { name: string }).name = "other";
    }, TypeError);
    assert.equal(cache.resolve("gadgets/g1").getAttributes.name, "g1");
  });

  it("throws for paths that do not resolve, and does not remember them", () => {
    const cache = new HotPathCache(registry);
    for (const bad of ["nothings/x", "gadgets/a/b/c", "namespaces/ns/gadgets/g", "gadgets//x", "gadgets/%zz"]) {
      assert.throws(() => cache.resolve(bad), ApiError, bad);
      assert.throws(() => cache.resolve(bad), ApiError, `${bad} again`);
    }
  });

  it("stays bounded: past 4,096 paths the least recently used is forgotten, the one asked for again kept", () => {
    const cache = new HotPathCache(registry);
    const first = cache.resolve("gadgets/n0");
    const second = cache.resolve("gadgets/n1");
    for (let i = 2; i < 4096; i++) cache.resolve(`gadgets/n${i}`);
    assert.equal(cache.resolve("gadgets/n0"), first, "still remembered at 4,096 paths (and now the most recent)");
    cache.resolve("gadgets/n4096");
    assert.equal(cache.resolve("gadgets/n0"), first, "a path polled over and over stays");
    const again = cache.resolve("gadgets/n1");
    assert.notEqual(again, second, "the least recently used was forgotten");
    assert.equal(again.key, second.key);
  });
});
