import { Type } from "@sinclair/typebox";
import { objectSchema } from "../api/schema/meta.js";
import { defineKind } from "../kinds/define.js";
import type { ResourceType, Strategy } from "../registry/resource-type.js";

/** A small cluster-scoped test kind, `Gadget` (`gadgets`), with one optional field `spec.size`. */
export function gadgetKind(strategy: Strategy = {}): ResourceType {
  return defineKind({
    kind: "Gadget",
    plural: "gadgets",
    singular: "gadget",
    shortNames: [],
    namespaced: false,
    hasStatus: false,
    description: "A test kind.",
    schema: objectSchema("Gadget", "A test kind.", Type.Object({ size: Type.Optional(Type.Integer()) }), undefined),
    columns: [],
    strategy,
  });
}
