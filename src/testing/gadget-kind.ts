import { Type } from "@sinclair/typebox";
import type { KubeObject } from "../api/object.js";
import { objectSchema } from "../api/schema/meta.js";
import { defineKind } from "../kinds/define.js";
import { defaultWriteOptions } from "../registry/options.js";
import { systemContext } from "../registry/request-context.js";
import type { ResourceType, Strategy } from "../registry/resource-type.js";
import type { Store } from "../registry/store.js";

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

/** Creates the Gadget `name` (empty spec) through `store`, as the system. */
export function createGadget(store: Store, name: string): Promise<KubeObject> {
  return store.create(
    systemContext(),
    undefined,
    { apiVersion: "management.platform/v1", kind: "Gadget", metadata: { name }, spec: {} } as KubeObject,
    defaultWriteOptions("test"),
  );
}
