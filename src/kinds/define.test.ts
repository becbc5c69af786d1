import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "@sinclair/typebox";
import { AccessRulesSchema, OwnerSchema } from "../api/schema/common.js";
import { objectSchema } from "../api/schema/meta.js";
import { defineKind, nameColumn } from "./define.js";

function kindWithSpec(spec: Parameters<typeof Type.Object>[0], console?: { columns: string[] }) {
  return defineKind({
    kind: "Thing",
    plural: "things",
    singular: "thing",
    shortNames: [],
    namespaced: false,
    hasStatus: false,
    description: "A test kind.",
    schema: objectSchema("Thing", "A test kind.", Type.Object(spec), undefined),
    columns: [nameColumn(), { name: "Size", type: "string", description: "Size.", priority: 0, cell: () => "" }],
    ...(console ? { console: { title: "Things", fields: [], columns: console.columns } } : {}),
  });
}

describe("defineKind: what a kind's schema tells", () => {
  it("has access rules exactly when its spec has `access`", () => {
    assert.equal(kindWithSpec({ access: Type.Optional(AccessRulesSchema) }).accessRules, true);
    assert.equal(kindWithSpec({ size: Type.Optional(Type.String()) }).accessRules, false);
  });

  it("names an owner exactly when its spec has `owner`", () => {
    assert.equal(kindWithSpec({ owner: Type.Optional(OwnerSchema) }).owner, true);
    assert.equal(kindWithSpec({ access: Type.Optional(AccessRulesSchema) }).owner, false);
  });

  it("lets only a namespaced kind with spec.clusterRef be a project's instances", () => {
    const instance = (namespaced: boolean, spec: Parameters<typeof Type.Object>[0]) =>
      defineKind({
        kind: "Thing",
        plural: "things",
        singular: "thing",
        shortNames: [],
        namespaced,
        projectInstance: true,
        hasStatus: false,
        description: "A test kind.",
        schema: objectSchema("Thing", "A test kind.", Type.Object(spec), undefined),
        columns: [nameColumn()],
      });
    const clusterRef = { clusterRef: Type.Optional(Type.Object({ cluster: Type.Optional(Type.String()) })) };
    assert.equal(instance(true, clusterRef).projectInstance, true);
    assert.throws(() => instance(false, clusterRef), /namespaced and name their cluster/);
    assert.throws(() => instance(true, {}), /namespaced and name their cluster/);
  });

  it("lets the console show only the kind's own Table columns", () => {
    assert.deepEqual(kindWithSpec({}, { columns: ["Size"] }).console?.columns, ["Size"]);
    assert.throws(
      () => kindWithSpec({}, { columns: ["Colour"] }),
      /the console column "Colour" is not one of its columns/,
    );
  });
});
