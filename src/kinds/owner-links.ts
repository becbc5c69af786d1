import { API_VERSION, type KubeObject } from "../api/object.js";
import type { ResourceType } from "../registry/resource-type.js";

/** Finds the uid of an object of this group by kind and name (undefined when there is none). */
export type UidLookup = (kind: string, namespace: string | undefined, name: string) => Promise<string | undefined>;

/** Names the owner an object of a kind gets at creation, if any. */
export type OwnerOf = (obj: KubeObject) => { kind: string; namespace?: string; name: string } | undefined;

/**
 * Wraps a kind so that its objects are created with an ownerReference to their owner
 * (controller, blocking owner deletion): the garbage collector then removes them with it.
 * Runs after the kind's own prepareForCreate (which may fill in the owner's name). An
 * owner that does not exist is not invented: the object is created without the reference.
 */
export function withOwnerLink(rt: ResourceType, ownerOf: OwnerOf, lookup: UidLookup): ResourceType {
  const prepare = rt.strategy.prepareForCreate;
  return {
    ...rt,
    strategy: {
      ...rt.strategy,
      async prepareForCreate(obj, ctx) {
        await prepare?.call(rt.strategy, obj, ctx);
        const owner = ownerOf(obj);
        if (!owner) return;
        const uid = await lookup(owner.kind, owner.namespace, owner.name);
        if (!uid) return;
        const refs = obj.metadata.ownerReferences ?? [];
        if (refs.some((r) => r.uid === uid)) return;
        const hasController = refs.some((r) => r.controller === true);
        obj.metadata.ownerReferences = [
          ...refs,
          {
            apiVersion: API_VERSION,
            kind: owner.kind,
            name: owner.name,
            uid,
            ...(hasController ? {} : { controller: true }),
            blockOwnerDeletion: true,
          },
        ];
      },
    },
  };
}

/** An access key made for a user or team belongs to it (decisions.md §5). */
export const accessKeyOwner: OwnerOf = (obj) => {
  const s = obj.spec ?? {};
  if (typeof s.user === "string" && s.user) return { kind: "User", name: s.user };
  if (typeof s.team === "string" && s.team) return { kind: "Team", name: s.team };
  return undefined;
};

/** A virtual cluster instance in `p-<project>` belongs to that project. */
export const virtualClusterInstanceOwner: OwnerOf = (obj) => {
  const ns = obj.metadata.namespace ?? "";
  return ns.startsWith("p-") && ns.length > 2 ? { kind: "Project", name: ns.slice(2) } : undefined;
};
