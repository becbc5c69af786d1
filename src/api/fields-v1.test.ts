import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  differenceFieldsV1,
  diffFieldsV1,
  fieldPathString,
  fieldsV1FromPathStrings,
  fieldsV1FromPaths,
  fieldsV1Of,
  fieldsV1ToPathStrings,
  fieldsV1ToPaths,
  intersectionFieldsV1,
  isEmptyFieldsV1,
  type ListTypeOf,
  normalizeFieldsV1,
  parseFieldPath,
  parsePathElementKey,
  pathElementKey,
  unionFieldsV1,
} from "./fields-v1.js";

const listType: ListTypeOf = (path) => {
  const p = path.join(".");
  if (p === "spec.roles") return { type: "map", keys: ["name"] };
  if (p === "spec.ports") return { type: "map", keys: ["port", "protocol"] };
  if (p === "spec.roles.verbs" || p === "metadata.finalizers") return { type: "set" };
  return undefined;
};

const team = {
  metadata: { name: "core", labels: { app: "web", "example.com/tier": "front" }, finalizers: ["a/b"] },
  spec: {
    roles: [
      { name: "admin", verbs: ["get", "list"] },
      { name: "view", verbs: ["get"] },
    ],
    members: ["alice", "bob"],
    quota: 3,
    extra: {},
    note: null,
  },
};

describe("fieldsV1Of", () => {
  it("lists the fields present, with keyed and set list items", () => {
    assert.deepEqual(fieldsV1Of(team, listType), {
      "f:metadata": {
        "f:finalizers": { 'v:"a/b"': {} },
        "f:labels": { "f:app": {}, "f:example.com/tier": {} },
        "f:name": {},
      },
      "f:spec": {
        "f:extra": {},
        "f:members": {},
        "f:note": {},
        "f:quota": {},
        "f:roles": {
          'k:{"name":"admin"}': { ".": {}, "f:name": {}, "f:verbs": { 'v:"get"': {}, 'v:"list"': {} } },
          'k:{"name":"view"}': { ".": {}, "f:name": {}, "f:verbs": { 'v:"get"': {} } },
        },
      },
    });
  });

  it("treats lists as atomic by default and when a key is missing or repeated", () => {
    assert.deepEqual(fieldsV1Of({ spec: { roles: [{ name: "a" }] } }), { "f:spec": { "f:roles": {} } });
    assert.deepEqual(fieldsV1Of({ spec: { roles: [{ verbs: [] }] } }, listType), { "f:spec": { "f:roles": {} } });
    assert.deepEqual(fieldsV1Of({ spec: { roles: [{ name: "a" }, { name: "a" }] } }, listType), {
      "f:spec": { "f:roles": {} },
    });
    assert.deepEqual(fieldsV1Of({ spec: { roles: [] } }, listType), { "f:spec": { "f:roles": {} } });
  });

  it("sorts multi-field keys by name", () => {
    const fs = fieldsV1Of({ spec: { ports: [{ protocol: "TCP", port: 80 }] } }, listType);
    assert.deepEqual(fs, {
      "f:spec": { "f:ports": { 'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {}, "f:protocol": {} } } },
    });
  });

  it("gives the empty set for an empty object", () => {
    assert.deepEqual(fieldsV1Of({}), {});
    assert.deepEqual(fieldsV1Of(undefined), {});
  });

  it("comes out canonical: keys and list items in order, as normalizeFieldsV1 writes the set", () => {
    const unordered = {
      spec: {
        zeta: { b: 1, a: { d: [], c: {} } },
        roles: [{ name: "view", verbs: ["list", "get"] }, { name: "admin" }, {}],
        ports: [
          { protocol: "UDP", port: 53 },
          { port: 80, protocol: "TCP", extra: null },
        ],
        alpha: [3, 1, 2],
      },
      metadata: { labels: { z: "1", a: "2" }, finalizers: ["b", "a"] },
    };
    for (const obj of [team, unordered]) {
      const fs = fieldsV1Of(obj, listType);
      assert.equal(JSON.stringify(fs), JSON.stringify(normalizeFieldsV1(fs)));
    }
    assert.deepEqual(
      fieldsV1Of(
        {
          spec: {
            ports: [
              { port: 80, protocol: "TCP" },
              { port: 53, protocol: "UDP" },
            ],
          },
        },
        listType,
      ),
      {
        "f:spec": {
          "f:ports": {
            'k:{"port":53,"protocol":"UDP"}': { ".": {}, "f:port": {}, "f:protocol": {} },
            'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {}, "f:protocol": {} },
          },
        },
      },
    );
  });
});

describe("set operations", () => {
  const a = { "f:metadata": { "f:labels": { "f:app": {}, "f:tier": {} } }, "f:spec": { "f:quota": {} } };
  const b = { "f:metadata": { "f:labels": { "f:app": {} } }, "f:spec": { "f:roles": { ".": {}, "f:x": {} } } };

  it("unions", () => {
    assert.deepEqual(unionFieldsV1(a, b), {
      "f:metadata": { "f:labels": { "f:app": {}, "f:tier": {} } },
      "f:spec": { "f:quota": {}, "f:roles": { ".": {}, "f:x": {} } },
    });
  });

  it("subtracts, keeping a node's own membership apart from its children", () => {
    assert.deepEqual(differenceFieldsV1(a, b), {
      "f:metadata": { "f:labels": { "f:tier": {} } },
      "f:spec": { "f:quota": {} },
    });
    assert.deepEqual(differenceFieldsV1(b, { "f:spec": { "f:roles": {} } }), {
      "f:metadata": { "f:labels": { "f:app": {} } },
      "f:spec": { "f:roles": { "f:x": {} } },
    });
    assert.deepEqual(differenceFieldsV1(a, a), {});
  });

  it("intersects", () => {
    assert.deepEqual(intersectionFieldsV1(a, b), { "f:metadata": { "f:labels": { "f:app": {} } } });
    assert.deepEqual(intersectionFieldsV1(a, {}), {});
  });

  it("knows empty sets", () => {
    assert.equal(isEmptyFieldsV1({}), true);
    assert.equal(isEmptyFieldsV1(undefined), true);
    assert.equal(isEmptyFieldsV1({ "f:spec": {} }), false);
    assert.equal(isEmptyFieldsV1(differenceFieldsV1(a, a)), true);
    // Not canonical: the root alone (`.`), a nested `.`, a non-object leaf are all members.
    assert.equal(isEmptyFieldsV1({ ".": {} }), false);
    assert.equal(isEmptyFieldsV1({ "f:spec": { ".": {} } }), false);
    assert.equal(isEmptyFieldsV1({ "f:spec": { "f:a": null } } as never), false);
    assert.equal(isEmptyFieldsV1([] as never), true);
  });

  it("normalises: `.` without children becomes a leaf, keys sorted", () => {
    assert.deepEqual(normalizeFieldsV1({ "f:b": { ".": {} }, "f:a": {} }), { "f:a": {}, "f:b": {} });
    assert.deepEqual(Object.keys(normalizeFieldsV1({ "i:10": {}, "v:1": {}, "i:9": {}, 'k:{"a":1}': {}, "f:z": {} })), [
      "f:z",
      'k:{"a":1}',
      "v:1",
      "i:9",
      "i:10",
    ]);
  });
});

describe("paths", () => {
  it("prints members as Kubernetes prints field paths", () => {
    const fs = fieldsV1Of(
      { metadata: { labels: { app: "x" } }, spec: { roles: [{ name: "admin", verbs: ["get"] }] } },
      listType,
    );
    assert.deepEqual(fieldsV1ToPathStrings(fs), [
      ".metadata.labels.app",
      '.spec.roles[name="admin"]',
      '.spec.roles[name="admin"].name',
      '.spec.roles[name="admin"].verbs[="get"]',
    ]);
  });

  it("round-trips through printed and structured paths", () => {
    const fs = fieldsV1Of(team, listType);
    assert.deepEqual(fieldsV1FromPaths(fieldsV1ToPaths(fs)), fs, "structured paths round-trip exactly");
    const plain = fieldsV1Of({ ...team, metadata: { name: "core", labels: { app: "web" } } }, listType);
    assert.deepEqual(fieldsV1FromPathStrings(fieldsV1ToPathStrings(plain)), plain);
    // a field name holding a dot prints ambiguously, as in Kubernetes
    assert.ok(fieldsV1ToPathStrings(fs).includes(".metadata.labels.example.com/tier"));
    assert.notDeepEqual(fieldsV1FromPathStrings(fieldsV1ToPathStrings(fs)), fs);
    const ports = fieldsV1Of({ spec: { ports: [{ port: 80, protocol: "TCP" }] } }, listType);
    assert.deepEqual(fieldsV1ToPathStrings(ports)[0], '.spec.ports[port=80,protocol="TCP"]');
    assert.deepEqual(fieldsV1FromPathStrings(fieldsV1ToPathStrings(ports)), ports);
  });

  it("parses each element kind, including quoted commas and brackets", () => {
    assert.deepEqual(parseFieldPath('.a[k="x,]y"].b[="v"][3]'), [
      { field: "a" },
      { key: { k: "x,]y" } },
      { field: "b" },
      { value: "v" },
      { index: 3 },
    ]);
    assert.equal(fieldPathString(parseFieldPath('.a[k="x,]y"].b[="v"][3]')), '.a[k="x,]y"].b[="v"][3]');
    assert.throws(() => parseFieldPath("a.b"), TypeError);
    assert.throws(() => parseFieldPath(".a[k=]"), TypeError);
    assert.throws(() => parseFieldPath('.a[k="x"'), TypeError);
  });

  it("encodes and decodes FieldsV1 keys", () => {
    for (const pe of [{ field: "a.b" }, { key: { name: "x", port: 1 } }, { value: "v" }, { index: 2 }]) {
      assert.deepEqual(parsePathElementKey(pathElementKey(pe)), pe);
    }
    assert.throws(() => parsePathElementKey("x:1"), TypeError);
    assert.throws(() => parsePathElementKey("k:[1]"), TypeError);
  });
});

describe("diffFieldsV1", () => {
  it("gives the changed and added fields of an update", () => {
    const before = structuredClone(team);
    const after = structuredClone(team);
    after.metadata.labels.app = "api";
    after.spec.quota = 4;
    after.spec.roles[0]!.verbs.push("watch");
    after.spec.roles.push({ name: "edit", verbs: ["update"] });
    (after.spec as Record<string, unknown>).owner = { team: "x" };
    delete (after.spec as Record<string, unknown>).note;
    assert.deepEqual(diffFieldsV1(before, after, listType), {
      "f:metadata": { "f:labels": { "f:app": {} } },
      "f:spec": {
        "f:owner": { ".": {}, "f:team": {} },
        "f:quota": {},
        "f:roles": {
          'k:{"name":"admin"}': { "f:verbs": { 'v:"watch"': {} } },
          'k:{"name":"edit"}': { ".": {}, "f:name": {}, "f:verbs": { ".": {}, 'v:"update"': {} } },
        },
      },
    });
  });

  it("is empty when nothing changed", () => {
    assert.deepEqual(diffFieldsV1(team, structuredClone(team), listType), {});
  });

  it("owns a new map as a whole as well as its entries", () => {
    assert.deepEqual(diffFieldsV1({ metadata: { name: "a" } }, { metadata: { name: "a", labels: { x: "1" } } }), {
      "f:metadata": { "f:labels": { ".": {}, "f:x": {} } },
    });
  });

  it("treats atomic lists as one value", () => {
    assert.deepEqual(diffFieldsV1({ spec: { members: ["a"] } }, { spec: { members: ["a", "b"] } }, listType), {
      "f:spec": { "f:members": {} },
    });
  });

  it("does not own a list emptied by the update, but owns a new empty one", () => {
    assert.deepEqual(diffFieldsV1({ spec: { members: ["a"] } }, { spec: { members: [] } }, listType), {});
    assert.deepEqual(diffFieldsV1({ spec: {} }, { spec: { members: [] } }, listType), {
      "f:spec": { "f:members": {} },
    });
  });

  it("owns a value changed to null or to an empty object", () => {
    assert.deepEqual(diffFieldsV1({ spec: { a: 1, b: null } }, { spec: { a: null, b: {} } }), {
      "f:spec": { "f:a": {}, "f:b": {} },
    });
  });

  it("equals fieldsV1Of without an old object", () => {
    assert.deepEqual(diffFieldsV1(undefined, team, listType), fieldsV1Of(team, listType));
  });
});
