import { randomUUID } from "node:crypto";
import { type FieldError, fieldError } from "../api/errors.js";
import { type KubeObject, nowTimestamp } from "../api/object.js";
import { validateAnnotations, validateLabels, validateOwnerReferences } from "../api/validation/metadata.js";
import { isDns1123Label, isDns1123Subdomain } from "../api/validation/names.js";

/**
 * The metadata rules every kind shares (k8s.io/apiserver rest.BeforeCreate/BeforeUpdate
 * and ValidateObjectMeta), kept apart from the store so they can be read and tested alone.
 */

/** Sets what the server owns on create: uid, creationTimestamp, generation; clears what clients may not set. */
export function prepareCreateMetadata(obj: KubeObject, now: Date): void {
  const m = obj.metadata;
  m.uid = randomUUID();
  m.creationTimestamp = nowTimestamp(now);
  m.generation = 1;
  delete m.resourceVersion;
  delete m.selfLink;
  delete m.deletionTimestamp;
  delete m.deletionGracePeriodSeconds;
  if (m.generateName === "") delete m.generateName;
  dropEmptyCollections(obj);
}

/**
 * Empty labels, annotations, finalizers and ownerReferences are stored as absent, as kube-apiserver
 * does (its typed ObjectMeta omits them): `kubectl diff` sends `annotations: {}` in its dry-run
 * patch and would otherwise see a change that is none.
 */
function dropEmptyCollections(obj: KubeObject): void {
  const m = obj.metadata as Record<string, unknown>;
  for (const field of ["labels", "annotations"]) {
    const v = m[field];
    if (v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0) delete m[field];
  }
  for (const field of ["finalizers", "ownerReferences"]) {
    const v = m[field];
    if (Array.isArray(v) && v.length === 0) delete m[field];
  }
}

export type NameRule = "subdomain" | "label";

/** Validates metadata of an object about to be created or updated. */
export function validateObjectMetadata(obj: KubeObject, nameRule: NameRule, maxNameLength?: number): FieldError[] {
  const m = obj.metadata;
  const errs: FieldError[] = [];
  if (!m.name) {
    errs.push(fieldError("FieldValueRequired", "metadata.name", "name or generateName is required"));
  } else {
    const problems = nameRule === "label" ? isDns1123Label(m.name) : isDns1123Subdomain(m.name);
    for (const p of problems) errs.push(fieldError("FieldValueInvalid", "metadata.name", p, m.name));
    if (maxNameLength !== undefined && m.name.length > maxNameLength) {
      errs.push(
        fieldError("FieldValueInvalid", "metadata.name", `must be no more than ${maxNameLength} characters`, m.name),
      );
    }
  }
  if (m.generateName) {
    // A prefix: the trailing dash it usually ends with is allowed (kube masks it the same way).
    const prefix = m.generateName.length > 1 ? m.generateName.replace(/-$/, "a") : m.generateName;
    const problems = nameRule === "label" ? isDns1123Label(prefix) : isDns1123Subdomain(prefix);
    for (const p of problems) errs.push(fieldError("FieldValueInvalid", "metadata.generateName", p, m.generateName));
  }
  if (m.namespace) {
    for (const p of isDns1123Label(m.namespace))
      errs.push(fieldError("FieldValueInvalid", "metadata.namespace", p, m.namespace));
  }
  errs.push(...validateLabels(m.labels, "metadata.labels"));
  errs.push(...validateAnnotations(m.annotations, "metadata.annotations"));
  errs.push(...validateOwnerReferences(m.ownerReferences, "metadata.ownerReferences"));
  if (m.finalizers) {
    const seen = new Set<string>();
    m.finalizers.forEach((f, i) => {
      if (seen.has(f)) errs.push(fieldError("FieldValueDuplicate", `metadata.finalizers[${i}]`, "", f));
      seen.add(f);
    });
  }
  return errs;
}

/**
 * Carries server-owned fields from the stored object into an update and reports
 * attempts to change immutable ones (422 "field is immutable"). A PUT's uid never gets here
 * changed: it is a precondition, refused before (preconditions.ts); a patch's does.
 */
export function mergeUpdateMetadata(obj: KubeObject, old: KubeObject): FieldError[] {
  const m = obj.metadata;
  const o = old.metadata;
  const errs: FieldError[] = [];
  if (m.uid !== undefined && m.uid !== null && m.uid !== "" && m.uid !== o.uid) {
    errs.push(fieldError("FieldValueInvalid", "metadata.uid", "field is immutable", m.uid));
  }
  m.uid = o.uid;
  // Ignored, as kube-apiserver ignores it on update: clients write the same instant other ways
  // (client-node's Date round trip sends `…:16.000Z` for `…:16Z`), and only the server sets it.
  m.creationTimestamp = o.creationTimestamp;
  m.generation = o.generation;
  delete m.selfLink;
  // Clients can neither set nor unset deletion fields; only the delete path changes them.
  if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
  else delete m.deletionTimestamp;
  if (o.deletionGracePeriodSeconds !== undefined && o.deletionGracePeriodSeconds !== null)
    m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
  else delete m.deletionGracePeriodSeconds;
  if (m.managedFields === undefined && o.managedFields) m.managedFields = o.managedFields;
  if (m.generateName === undefined && o.generateName) m.generateName = o.generateName;
  dropEmptyCollections(obj);
  return errs;
}

/**
 * What an update of the main resource takes from the stored object (metadata only the server
 * sets, and the status, which only the status subresource changes), with the errors of what it
 * may not change: the write pipeline's first step of an update (store.ts), and what a refusal by
 * the schema lists of metadata (schema-refusal.ts).
 */
export function carryStoredFields(obj: KubeObject, old: KubeObject, hasStatus: boolean): FieldError[] {
  const errs = mergeUpdateMetadata(obj, old);
  if (hasStatus) obj.status = old.status;
  errs.push(...validateTerminatingFinalizers(obj, old));
  return errs;
}

/** While an object is terminating its finalizers may only be removed, never added. */
export function validateTerminatingFinalizers(obj: KubeObject, old: KubeObject): FieldError[] {
  if (!old.metadata.deletionTimestamp) return [];
  const before = new Set(old.metadata.finalizers ?? []);
  const added = (obj.metadata.finalizers ?? []).filter((f) => !before.has(f));
  return added.length
    ? [
        fieldError(
          "FieldValueForbidden",
          "metadata.finalizers",
          `no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        ),
      ]
    : [];
}

/** Everything outside metadata and status: a change here bumps generation. */
export function desiredStateOf(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}
