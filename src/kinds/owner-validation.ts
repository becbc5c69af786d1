import { isDeepStrictEqual } from "node:util";
import { type FieldError, fieldError } from "../api/errors.js";
import { type KubeObject, specOf } from "../api/object.js";
import type { Owner } from "../api/schema/common.js";
import type { Strategy } from "../registry/resource-type.js";

/**
 * `spec.owner` names one owner: a user or a team, not both (an owner is who gets the object's
 * owner rights and whose quotas it counts against; two would make every reader pick one).
 * Checked on a create, and on an update only when the owner changes: an object stored with both
 * before the rule stays writable for its other fields, as Kubernetes ratchets a tightened
 * validation.
 */
export function ownerErrors(obj: KubeObject, old?: KubeObject): FieldError[] {
  const owner = specOf<{ owner?: Owner }>(obj).owner;
  if (old && isDeepStrictEqual(owner, specOf<{ owner?: Owner }>(old).owner)) return [];
  if (!owner?.user || !owner.team) return [];
  return [fieldError("FieldValueInvalid", "spec.owner", "may name at most one of user, team", owner)];
}

/** The kind's strategy with the owner rule added to its validation (defineKind, for a kind with `spec.owner`). */
export function withOwnerValidation(strategy: Strategy): Strategy {
  const { validate, validateUpdate } = strategy;
  return {
    ...strategy,
    validate: async (obj, ctx) => [...((await validate?.(obj, ctx)) ?? []), ...ownerErrors(obj)],
    validateUpdate: async (obj, old, ctx) => [
      ...((await (validateUpdate ? validateUpdate(obj, old, ctx) : validate?.(obj, ctx))) ?? []),
      ...ownerErrors(obj, old),
    ],
  };
}
