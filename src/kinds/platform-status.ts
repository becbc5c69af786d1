import type { KubeObject } from "../api/object.js";
import type { RequestContext } from "../registry/request-context.js";

/** Whether the write is the server's own (its controllers, actions and bootstrap), not a client's. */
export function isServerCaller(ctx: RequestContext): boolean {
  return ctx.user.credential?.type === "Internal";
}

/**
 * A `prepareForStatusUpdate` (registry/resource-type.ts) that keeps the stored values of the
 * status fields the platform decides with: a client's status write may change the others, but
 * these stay as the platform last wrote them (present or absent), as kube's status strategies
 * keep the fields they own. A client with update on the status subresource could otherwise
 * steer the controllers: what they prune, which namespace they take as their own, what they
 * believe deployed.
 */
export function keepPlatformStatusFields(
  fields: readonly string[],
): (obj: KubeObject, old: KubeObject, ctx: RequestContext) => void {
  return (obj, old, ctx) => {
    if (isServerCaller(ctx)) return;
    const stored = (old.status ?? {}) as Record<string, unknown>;
    const sent = { ...((obj.status ?? {}) as Record<string, unknown>) };
    for (const field of fields) {
      if (Object.hasOwn(stored, field)) sent[field] = structuredClone(stored[field]);
      else delete sent[field];
    }
    obj.status = sent;
  };
}
