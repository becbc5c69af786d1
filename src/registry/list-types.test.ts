import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "@sinclair/typebox";
import { AccessRulesSchema, ClusterRolesSchema } from "../api/schema/common.js";
import { listTypeOfSchema } from "./list-types.js";

describe("list types derived from schemas", () => {
  it("keys a list by name when every item must have one (cluster roles)", () => {
    assert.deepEqual(listTypeOfSchema(ClusterRolesSchema), { type: "map", keys: ["name"] });
  });

  it("keeps a list atomic when its items' name is optional (access rules), as a CRD must", () => {
    // kube-apiserver refuses a CRD whose list-map key is neither required nor defaulted.
    assert.deepEqual(listTypeOfSchema(AccessRulesSchema), { type: "atomic" });
    const optionalName = Type.Array(Type.Object({ name: Type.Optional(Type.String()), v: Type.String() }));
    assert.deepEqual(listTypeOfSchema(optionalName), { type: "atomic" });
  });

  it("keeps what a schema declares", () => {
    const declared = Type.Array(Type.Object({ id: Type.Optional(Type.String()) }), {
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["id"],
    });
    assert.deepEqual(listTypeOfSchema(declared), { type: "map", keys: ["id"] });
  });
});
