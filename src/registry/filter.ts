import type { KubeObject } from "../api/object.js";
import { parseFieldSelector } from "../api/selectors/field-selector.js";
import { parseLabelSelector } from "../api/selectors/label-selector.js";
import type { RequestContext } from "./request-context.js";
import type { ResourceType } from "./resource-type.js";

/** Which objects a list or watch returns: selectors, then what the caller may see. */
export interface ObjectFilter {
  matches(obj: KubeObject): boolean;
  /** Set when the field selector pins metadata.name, so a list or watch can be narrowed to one key. */
  exactName?: string;
  /** True when nothing is filtered (lists then report remainingItemCount). */
  matchesEverything: boolean;
}

export function compileFilter(
  rt: ResourceType,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
  ctx: RequestContext,
): ObjectFilter {
  const extra = rt.fieldSelectors ?? {};
  const labels = labelSelector ? parseLabelSelector(labelSelector) : undefined;
  const fields = fieldSelector
    ? parseFieldSelector(fieldSelector, ["metadata.name", "metadata.namespace", ...Object.keys(extra)])
    : undefined;
  const fieldValue =
    (obj: KubeObject) =>
    (field: string): string | undefined => {
      if (field === "metadata.name") return obj.metadata.name;
      if (field === "metadata.namespace") return obj.metadata.namespace ?? "";
      return extra[field]?.(obj);
    };
  const canSee = ctx.canSee;
  return {
    matches(obj) {
      if (labels && !labels.empty && !labels(obj.metadata.labels ?? {})) return false;
      if (fields && !fields.empty && !fields(fieldValue(obj))) return false;
      if (canSee && !canSee(obj)) return false;
      return true;
    },
    exactName: fields?.exactName,
    matchesEverything: (!labels || labels.empty) && (!fields || fields.empty) && !canSee,
  };
}
