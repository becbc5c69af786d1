import { errors } from "../api/errors.js";
import type {
  DeleteOptions,
  FieldValidation,
  ListOptions,
  PropagationPolicy,
  WatchOptions,
  WriteOptions,
} from "../registry/options.js";

/** Query parameters as fastify hands them: a value or, when repeated, an array of values. */
export type Query = Record<string, string | string[] | undefined>;

function one(q: Query, name: string): string | undefined {
  const v = q[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

function bool(q: Query, name: string): boolean | undefined {
  const v = one(q, name);
  if (v === undefined) return undefined;
  if (v === "" || v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw errors.badRequest(`invalid value for ${name}: "${v}" (true or false)`);
}

function int(q: Query, name: string, min = 0): number | undefined {
  const v = one(q, name);
  if (v === undefined || v === "") return undefined;
  if (!/^-?\d+$/.test(v) || Number(v) < min) throw errors.badRequest(`invalid value for ${name}: "${v}"`);
  return Number(v);
}

export const MAX_FIELD_MANAGER_LENGTH = 128;

/** dryRun, fieldManager and fieldValidation of a write. The manager defaults to the User-Agent's product token. */
export function writeOptions(q: Query, userAgent: string | undefined): WriteOptions {
  const dryRunValues = ([] as string[]).concat(q.dryRun ?? []);
  for (const v of dryRunValues) {
    if (v !== "All") throw errors.badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  }
  const manager = one(q, "fieldManager");
  if (manager !== undefined && manager.length > MAX_FIELD_MANAGER_LENGTH) {
    throw errors.invalid("PatchOptions", "meta.k8s.io", "", [
      {
        type: "FieldValueTooLong",
        field: "fieldManager",
        detail: `may not be more than ${MAX_FIELD_MANAGER_LENGTH} bytes`,
      },
    ]);
  }
  const fv = one(q, "fieldValidation") ?? "Warn";
  if (fv !== "Strict" && fv !== "Warn" && fv !== "Ignore") {
    throw errors.badRequest(
      `fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Warn", "Strict"`,
    );
  }
  const force = bool(q, "force");
  return {
    dryRun: dryRunValues.length > 0,
    fieldManager: manager || productToken(userAgent),
    fieldValidation: fv as FieldValidation,
    fieldManagerGiven: !!manager,
    ...(force !== undefined ? { force } : {}),
  };
}

/** `kubectl/v1.32.4 (linux/amd64) kubernetes/abc` → `kubectl` (what kube-apiserver records). */
export function productToken(userAgent: string | undefined): string {
  const token = (userAgent ?? "").split("/")[0]?.split(" ")[0]?.trim();
  return token ? token.slice(0, MAX_FIELD_MANAGER_LENGTH) : "unknown";
}

export function listOptions(q: Query): ListOptions {
  return {
    labelSelector: one(q, "labelSelector"),
    fieldSelector: one(q, "fieldSelector"),
    limit: int(q, "limit"),
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
  const b = (body && typeof body === "object" ? body : {}) as {
    gracePeriodSeconds?: unknown;
    propagationPolicy?: unknown;
    orphanDependents?: unknown;
    preconditions?: { uid?: unknown; resourceVersion?: unknown };
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
  if (grace !== undefined && (typeof grace !== "number" || !Number.isInteger(grace) || grace < 0)) {
    throw errors.badRequest("gracePeriodSeconds must be a non-negative integer");
  }
  const dryRun = ([] as unknown[]).concat(b.dryRun ?? [], q.dryRun ?? []);
  for (const v of dryRun)
    if (v !== "All") throw errors.badRequest(`dryRun: Unsupported value: "${String(v)}": supported values: "All"`);
  const preconditions = b.preconditions
    ? {
        uid: typeof b.preconditions.uid === "string" ? b.preconditions.uid : undefined,
        resourceVersion:
          typeof b.preconditions.resourceVersion === "string" ? b.preconditions.resourceVersion : undefined,
      }
    : undefined;
  return {
    dryRun: dryRun.length > 0,
    gracePeriodSeconds: grace as number | undefined,
    propagationPolicy:
      (policy as PropagationPolicy | undefined) ??
      (orphanDependents === true ? "Orphan" : orphanDependents === false ? "Background" : undefined),
    preconditions,
  };
}
