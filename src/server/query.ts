import { errors, type FieldError, fieldError } from "../api/errors.js";
import { kubeBool } from "../api/request-verb.js";
import type {
  DeleteOptions,
  FieldValidation,
  GetOptions,
  ListOptions,
  PropagationPolicy,
  WatchOptions,
  WriteOptions,
} from "../registry/options.js";
import { IGNORE_STORE_READ_ERROR } from "../registry/unsafe-delete.js";
import { deletePreconditions } from "./delete-preconditions.js";
import { ignoreStoreReadError } from "./unsafe-delete-option.js";

/** Query parameters as fastify hands them: a value or, when repeated, an array of values. */
export type Query = Record<string, string | string[] | undefined>;

/** A repeated parameter counts by its first value, as kube-apiserver's query conversion reads it. */
function one(q: Query, name: string): string | undefined {
  const v = q[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A boolean query parameter as kube-apiserver converts it: only `0` and `false` (any case) are false;
 * any other value, the empty string included, is true. The Python client sends `True`/`False`.
 */
export function bool(q: Query, name: string): boolean | undefined {
  const v = one(q, name);
  return v === undefined ? undefined : kubeBool(v);
}

function int(q: Query, name: string, min = 0): number | undefined {
  const v = one(q, name);
  if (v === undefined || v === "") return undefined;
  // Past 2^53 the number is not what was asked, and storage refuses it (limit=1e20 gave a 500).
  if (!/^-?\d+$/.test(v) || Number(v) < min || !Number.isSafeInteger(Number(v)))
    throw errors.badRequest(`invalid value for ${name}: "${v}"`);
  return Number(v);
}

/** kube-apiserver lists everything for a limit of zero or less, so clients may send one. */
function positiveOrNone(limit: number | undefined): number | undefined {
  return limit !== undefined && limit > 0 ? limit : undefined;
}

const MAX_FIELD_MANAGER_LENGTH = 128;

/** The longest grace period a delete may ask for: 100 years. */
const MAX_GRACE_PERIOD_SECONDS = 100 * 365 * 24 * 3600;

/** Which options a write's query is decoded as; a bad value is reported against that kind, as kube does. */
export type WriteOptionsKind = "CreateOptions" | "UpdateOptions" | "PatchOptions";

/**
 * dryRun, fieldManager and fieldValidation of a write. The manager defaults to the User-Agent's
 * product token. Bad values are one 422 Invalid `<kind>.meta.k8s.io ""` with every cause, as
 * kube-apiserver's Validate{Create,Update,Patch}Options report them.
 */
export function writeOptions(q: Query, userAgent: string | undefined, kind: WriteOptionsKind): WriteOptions {
  const dryRunValues = ([] as string[]).concat(q.dryRun ?? []);
  const manager = one(q, "fieldManager");
  const fv = one(q, "fieldValidation") || "Warn";
  const errs = [...validateFieldManager(manager ?? ""), ...validateDryRun(dryRunValues)];
  if (fv !== "Strict" && fv !== "Warn" && fv !== "Ignore") {
    errs.push(
      fieldError("FieldValueNotSupported", "fieldValidation", 'supported values: "Ignore", "Strict", "Warn"', fv),
    );
  }
  if (errs.length) throw errors.invalid(kind, "meta.k8s.io", "", errs);
  const force = bool(q, "force");
  return {
    dryRun: dryRunValues.length > 0,
    fieldManager: manager || productToken(userAgent),
    fieldValidation: fv as FieldValidation,
    fieldManagerGiven: !!manager,
    ...(force !== undefined ? { force } : {}),
  };
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** kube's ValidateFieldManager: at most 128 bytes (UTF-8, not characters), printable characters only. */
function validateFieldManager(manager: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager) > MAX_FIELD_MANAGER_LENGTH) {
    errs.push(
      fieldError("FieldValueTooLong", "fieldManager", `may not be more than ${MAX_FIELD_MANAGER_LENGTH} bytes`),
    );
  }
  let position = 0; // a byte offset, as Go's range over a string reports it
  for (const ch of manager) {
    if (!PRINTABLE.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
      errs.push(
        fieldError(
          "FieldValueInvalid",
          "fieldManager",
          `invalid character U+${code} (at position ${position})`,
          manager,
        ),
      );
    }
    position += Buffer.byteLength(ch);
  }
  return errs;
}

function validateDryRun(values: unknown[]): FieldError[] {
  return values.every((v) => v === "All")
    ? []
    : [fieldError("FieldValueNotSupported", "dryRun", 'supported values: "All"', values)];
}

/** `kubectl/v1.32.4 (linux/amd64) kubernetes/abc` → `kubectl` (what kube-apiserver records). */
function productToken(userAgent: string | undefined): string {
  const token = (userAgent ?? "").split("/")[0]?.split(" ")[0]?.trim();
  return token ? token.slice(0, MAX_FIELD_MANAGER_LENGTH) : "unknown";
}

export function getOptions(q: Query): GetOptions {
  return { resourceVersion: one(q, "resourceVersion") };
}

export function listOptions(q: Query): ListOptions {
  return {
    labelSelector: one(q, "labelSelector"),
    fieldSelector: one(q, "fieldSelector"),
    limit: positiveOrNone(int(q, "limit", Number.MIN_SAFE_INTEGER)),
    continue: one(q, "continue") || undefined,
    resourceVersion: one(q, "resourceVersion"),
    resourceVersionMatch: one(q, "resourceVersionMatch") || undefined,
  };
}

export function isWatch(q: Query): boolean {
  return bool(q, "watch") === true;
}

export function watchOptions(q: Query): WatchOptions {
  return {
    labelSelector: one(q, "labelSelector"),
    fieldSelector: one(q, "fieldSelector"),
    resourceVersion: one(q, "resourceVersion"),
    resourceVersionMatch: one(q, "resourceVersionMatch") || undefined,
    allowWatchBookmarks: bool(q, "allowWatchBookmarks") === true,
    sendInitialEvents: bool(q, "sendInitialEvents"),
    timeoutSeconds: int(q, "timeoutSeconds"),
  };
}

const PROPAGATION: readonly string[] = ["Orphan", "Background", "Foreground"];

/** DeleteOptions from the query and an optional body (kubectl sends a body). */
export function deleteOptions(q: Query, body: unknown): DeleteOptions {
  const b = (body && typeof body === "object" ? body : {}) as Record<string, unknown> & {
    gracePeriodSeconds?: unknown;
    propagationPolicy?: unknown;
    orphanDependents?: unknown;
    preconditions?: unknown;
    dryRun?: unknown;
  };
  const policy = (b.propagationPolicy as string | undefined) ?? one(q, "propagationPolicy");
  const orphanDependents = b.orphanDependents ?? bool(q, "orphanDependents");
  if (policy !== undefined && !PROPAGATION.includes(policy)) {
    throw errors.invalid("DeleteOptions", "meta.k8s.io", "", [
      {
        type: "FieldValueNotSupported",
        field: "propagationPolicy",
        detail: 'supported values: "Foreground", "Background", "Orphan"',
        value: policy,
      },
    ]);
  }
  if (policy !== undefined && orphanDependents !== undefined) {
    throw errors.invalid("DeleteOptions", "meta.k8s.io", "", [
      {
        type: "FieldValueInvalid",
        field: "propagationPolicy",
        detail: "orphanDependents and deletionPropagation cannot be both set",
        value: policy,
      },
    ]);
  }
  const grace = b.gracePeriodSeconds ?? int(q, "gracePeriodSeconds");
  // The bound keeps now + grace a valid date (a larger value made the deletion timestamp throw: 500).
  if (
    grace !== undefined &&
    (typeof grace !== "number" || !Number.isInteger(grace) || grace < 0 || grace > MAX_GRACE_PERIOD_SECONDS)
  ) {
    throw errors.badRequest(`gracePeriodSeconds must be a non-negative integer of at most ${MAX_GRACE_PERIOD_SECONDS}`);
  }
  const dryRun = ([] as unknown[]).concat(b.dryRun ?? [], q.dryRun ?? []);
  const dryRunErrs = validateDryRun(dryRun);
  if (dryRunErrs.length) throw errors.invalid("DeleteOptions", "meta.k8s.io", "", dryRunErrs);
  const preconditions = deletePreconditions(b.preconditions);
  const parsed: DeleteOptions = {
    dryRun: dryRun.length > 0,
    gracePeriodSeconds: grace as number | undefined,
    propagationPolicy:
      (policy as PropagationPolicy | undefined) ??
      (orphanDependents === true ? "Orphan" : orphanDependents === false ? "Background" : undefined),
    preconditions,
  };
  if (ignoreStoreReadError(bool(q, IGNORE_STORE_READ_ERROR), b, parsed, orphanDependents !== undefined))
    parsed.ignoreStoreReadErrorWithClusterBreakingPotential = true;
  return parsed;
}
