import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { encodeObject } from "./codec.js";
import { objectKey } from "./keys.js";
import type { ListOptions } from "./options.js";
import { LIST_CHUNK_BYTES } from "./raw-list.js";
import { type RequestContext, systemContext } from "./request-context.js";
import type { Store } from "./store.js";

/** The fast path's list and the normal path's, as parsed JSON. */
async function both(store: Store, ctx: () => RequestContext, ns: string | undefined, options: ListOptions) {
  const raw = await store.listRaw(ctx(), ns, options);
  assert.ok(raw, "the fast path applies");
  const fast = JSON.parse(raw.toBuffer().toString("utf8"));
  const slow = JSON.parse(JSON.stringify(await store.list(ctx(), ns, options)));
  return { fast, slow };
}

/** Walks every page of a list on both paths in lockstep; each page must be the same. */
async function walk(store: Store, ctx: () => RequestContext, ns: string | undefined, options: ListOptions) {
  const names: string[] = [];
  let cont: string | undefined;
  for (let page = 0; page < 100; page++) {
    const { fast, slow } = await both(store, ctx, ns, { ...options, continue: cont });
    assert.deepEqual(fast, slow, `page ${page} of ${JSON.stringify(options)}`);
    names.push(...fast.items.map((i: { metadata: { name: string } }) => i.metadata.name));
    cont = fast.metadata.continue;
    if (!cont) return names;
  }
  throw new Error("too many pages");
}

describe("raw list (LIST fast path)", () => {
  let server: TestServer;
  let teams: Store;
  let vcis: Store;
  let firstRevision = "";

  before(async () => {
    server = await startTestServer();
    teams = server.registry.store("teams");
    vcis = server.registry.store("virtualclusterinstances");
    for (let i = 0; i < 7; i++) {
      const r = await server.request("POST", `${GROUP_PATH}/teams`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: "Team",
          metadata: { name: `t${i}`, labels: { parity: i % 2 ? "odd" : "even" } },
          spec: { displayName: `Team "${i}" \\ ü ${"\u2028"}` },
        },
      });
      assert.equal(r.status, 201, r.text);
      if (i === 0) firstRevision = r.json.metadata.resourceVersion;
    }
    // Stored shapes encodeObject does not write, yet decodable: a number it would write
    // otherwise, and JSON with spaces (not sendable as stored: the fast path encodes that one
    // object as the normal path does).
    await server.storage.create(
      `${objectKey(teams.rt, undefined, "t7")}`,
      Buffer.from('{"apiVersion":"management.platform/v1","kind":"Team","metadata":{"name":"t7"},"spec":{"n":1.0}}'),
    );
    await server.storage.create(
      `${objectKey(teams.rt, undefined, "t8")}`,
      Buffer.from('{ "apiVersion": "management.platform/v1", "kind": "Team", "metadata" : { "name": "t8" } }'),
    );
    for (const [ns, name] of [
      ["a", "v1"],
      ["a", "v2"],
      ["b", "v3"],
    ] as const) {
      const obj = {
        apiVersion: "management.platform/v1",
        kind: "VirtualClusterInstance",
        metadata: { name, namespace: ns },
      };
      await server.storage.create(objectKey(vcis.rt, ns, name), encodeObject(obj));
    }
  });
  after(() => server?.stop());

  it("whole lists and every page of paginated lists are the normal path's JSON", async () => {
    const all = await walk(teams, systemContext, undefined, {});
    assert.equal(all.length, 9);
    for (const limit of [1, 2, 4, 9, 10]) {
      assert.deepEqual(await walk(teams, systemContext, undefined, { limit }), all, `limit ${limit}`);
    }
    const { fast } = await both(teams, systemContext, undefined, { limit: 4 });
    assert.equal(fast.metadata.remainingItemCount, 5);
    assert.equal(fast.items[0].metadata.resourceVersion, firstRevision);
  });

  it("selectors and per-caller visibility filter the same objects, with pagination", async () => {
    const even = await walk(teams, systemContext, undefined, { labelSelector: "parity=even", limit: 2 });
    assert.deepEqual(even, ["t0", "t2", "t4", "t6"]);
    assert.deepEqual(await walk(teams, systemContext, undefined, { fieldSelector: "metadata.name=t3" }), ["t3"]);
    assert.deepEqual(await walk(teams, systemContext, undefined, { fieldSelector: "metadata.name!=t3", limit: 3 }), [
      "t0",
      "t1",
      "t2",
      "t4",
      "t5",
      "t6",
      "t7",
      "t8",
    ]);
    const visible = () => ({
      ...systemContext(),
      canSee: (o: { metadata: { name?: string } }) => o.metadata.name !== "t1",
    });
    const seen = await walk(teams, visible, undefined, { limit: 3 });
    assert.deepEqual(seen, ["t0", "t2", "t3", "t4", "t5", "t6", "t7", "t8"]);
    const { fast } = await both(teams, visible, undefined, { limit: 3 });
    assert.equal(fast.metadata.remainingItemCount, undefined, "not reported when a filter applies");
  });

  it("namespaced lists: one namespace, and all of them", async () => {
    assert.deepEqual(await walk(vcis, systemContext, "a", { limit: 1 }), ["v1", "v2"]);
    assert.deepEqual(await walk(vcis, systemContext, undefined, { limit: 2 }), ["v1", "v2", "v3"]);
  });

  it("resourceVersion and resourceVersionMatch: the same snapshot, or the same error", async () => {
    const exact = await walk(teams, systemContext, undefined, {
      resourceVersion: firstRevision,
      resourceVersionMatch: "Exact",
    });
    assert.deepEqual(exact, ["t0"], "an older snapshot, from the storage's history");
    await walk(teams, systemContext, undefined, { resourceVersion: "0" });
    await walk(teams, systemContext, undefined, {
      resourceVersion: firstRevision,
      resourceVersionMatch: "NotOlderThan",
    });
    for (const bad of [{ resourceVersionMatch: "Exact" }, { continue: "garbage" }, { resourceVersion: "x" }]) {
      const fast = await teams.listRaw(systemContext(), undefined, bad).catch((e: unknown) => e);
      const slow = await teams.list(systemContext(), undefined, bad).catch((e: unknown) => e);
      assert.ok(fast instanceof Error, JSON.stringify(bad));
      assert.deepEqual(fast, slow);
    }
  });

  it("pieces of any size join to the whole body", async () => {
    const body = await teams.listRaw(systemContext(), undefined, {});
    assert.ok(body);
    const whole = body.toBuffer();
    assert.equal(whole.length, body.byteLength);
    for (const target of [1, 50, 700, whole.length - 1, whole.length, whole.length * 2]) {
      const pieces: Buffer[] = [...body.chunks(target)];
      assert.deepEqual(Buffer.concat(pieces), whole, `pieces of ${target}`);
      if (target === 1) assert.equal(pieces.length, 9, "one item per piece");
    }
    const empty = await teams.listRaw(systemContext(), undefined, { labelSelector: "parity=none" });
    assert.deepEqual(JSON.parse(Buffer.concat([...empty!.chunks(1)]).toString()).items, []);
  });

  it("a list larger than one piece is streamed with its exact length", async () => {
    const ops = [];
    for (let i = 0; i < 3 * Math.ceil(LIST_CHUNK_BYTES / 1024); i++) {
      const obj = {
        apiVersion: "management.platform/v1",
        kind: "VirtualClusterInstance",
        metadata: { name: `big${i}`, namespace: "big", annotations: { pad: "x".repeat(900) } },
      };
      ops.push({ type: "create" as const, key: objectKey(vcis.rt, "big", `big${i}`), value: encodeObject(obj) });
    }
    await server.storage.txn(ops);
    const r = await server.request("GET", `${GROUP_PATH}/namespaces/big/virtualclusterinstances`);
    assert.equal(r.status, 200);
    assert.ok(Buffer.byteLength(r.text) > 2 * LIST_CHUNK_BYTES);
    assert.equal(r.headers["content-length"], String(Buffer.byteLength(r.text)));
    assert.equal(r.headers["transfer-encoding"], undefined);
    const { slow } = await both(vcis, systemContext, "big", {});
    // The list's resourceVersion is the store's newest revision, which a background write (a
    // controller's, an Event) may move between the two reads: the objects listed must be the same.
    const { metadata: served, ...servedList } = r.json;
    const { metadata: read, ...readList } = slow as { metadata: Record<string, unknown> };
    assert.deepEqual(servedList, readList);
    assert.deepEqual(Object.keys(served), Object.keys(read));
  });

  it("kinds that transform or hide fields keep the normal path", async () => {
    for (const plural of ["ownedaccesskeys", "sharedsecrets"]) {
      const store = server.registry.store(plural);
      assert.equal(await store.listRaw(systemContext(), undefined, {}), undefined, plural);
    }
  });

  it("is what a plain JSON LIST serves; a Table or YAML LIST is the normal path", async () => {
    const json = await server.request("GET", `${GROUP_PATH}/teams?limit=3`);
    const { fast } = await both(teams, systemContext, undefined, { limit: 3 });
    assert.equal(json.status, 200);
    assert.match(String(json.headers["content-type"]), /^application\/json/);
    // The normal path appends resourceVersion to metadata; the fast path splices it in first.
    assert.match(
      json.text,
      /"items":\[\{"apiVersion":"management.platform\/v1","kind":"Team","metadata":\{"resourceVersion":/,
    );
    // The list's resourceVersion is the store's newest revision, which a write in the background
    // (an Event, a controller's status) may move between the two reads: compare what was listed,
    // and where the next page starts.
    const { resourceVersion: _rv, continue: next, ...rest } = json.json.metadata;
    const { resourceVersion: _fastRv, continue: fastNext, ...fastRest } = fast.metadata;
    assert.deepEqual({ ...json.json, metadata: rest }, { ...fast, metadata: fastRest });
    const start = (token: string) => JSON.parse(Buffer.from(token, "base64").toString()).start;
    assert.equal(start(next), start(fastNext));
    const yaml = await server.request("GET", `${GROUP_PATH}/teams`, { headers: { accept: "application/yaml" } });
    assert.match(yaml.text, /^apiVersion: management.platform\/v1\nkind: TeamList/);
    const table = await server.request("GET", `${GROUP_PATH}/teams`, {
      headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
    });
    assert.equal(table.json.kind, "Table");
  });
});
