import { errors, type FieldError, fieldError } from "../api/errors.js";
import type { DeleteOptions } from "../registry/options.js";
import { IGNORE_STORE_READ_ERROR } from "../registry/unsafe-delete.js";

/**
 * `ignoreStoreReadErrorWithClusterBreakingPotential` from the body or the query (the body wins,
 * as for the other options). Set, it must stand alone: the unsafe deletion honours no dry run,
 * grace period, propagation policy or precondition, so asking for one with it is a 422 Invalid
 * (kube's ValidateDeleteOptions) rather than silently ignored.
 */
export function ignoreStoreReadError(
  /** The query parameter, read as kube reads booleans (query.ts). */
  fromQuery: boolean | undefined,
  body: Record<string, unknown>,
  parsed: DeleteOptions,
  orphanDependentsSet: boolean,
): boolean {
  const given = body[IGNORE_STORE_READ_ERROR];
  if (given !== undefined && typeof given !== "boolean")
    throw errors.badRequest(`${IGNORE_STORE_READ_ERROR} must be a boolean`);
  const value = (given as boolean | undefined) ?? fromQuery ?? false;
  if (!value) return false;
  const together = (what: string): FieldError =>
    fieldError("FieldValueInvalid", IGNORE_STORE_READ_ERROR, `cannot be set together with .${what}`, true);
  const errs: FieldError[] = [];
  if (parsed.dryRun) errs.push(together("dryRun"));
  if (parsed.gracePeriodSeconds !== undefined) errs.push(together("gracePeriodSeconds"));
  if (orphanDependentsSet) errs.push(together("orphanDependents"));
  else if (parsed.propagationPolicy !== undefined) errs.push(together("propagationPolicy"));
  if (parsed.preconditions) errs.push(together("preconditions"));
  if (errs.length) throw errors.invalid("DeleteOptions", "meta.k8s.io", "", errs);
  return true;
}
