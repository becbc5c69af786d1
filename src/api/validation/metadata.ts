/**
 * ObjectMeta checks, as k8s.io/apimachinery/pkg/api/validation and
 * pkg/apis/meta/v1/validation make them. Each returns FieldErrors with
 * Kubernetes field paths (`metadata.labels`, `metadata.ownerReferences.uid`, ...).
 */
import { type FieldError, fieldError } from "../errors.js";
import type { OwnerReference } from "../object.js";
import { isQualifiedName, isValidLabelValue } from "./names.js";

/** The total size limit of all annotation keys and values, in bytes (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;

/** Finalizers Kubernetes accepts without a domain prefix. */
const STANDARD_FINALIZERS: readonly string[] = ["kubernetes", "orphan", "foregroundDeletion"];

/** A label key: a qualified name. */
function validateLabelName(key: string, path: string): FieldError[] {
  return isQualifiedName(key).map((msg) => fieldError("FieldValueInvalid", path, msg, key));
}

/** Label keys are qualified names; values are empty or ≤ 63 characters of `[-A-Za-z0-9_.]`. */
export function validateLabels(
  labels: Record<string, string> | undefined | null,
  path = "metadata.labels",
): FieldError[] {
  const errs: FieldError[] = [];
  if (!labels) return errs;
  for (const [key, value] of Object.entries(labels)) {
    errs.push(...validateLabelName(key, path));
    if (typeof value !== "string") {
      errs.push(fieldError("FieldValueTypeInvalid", `${path}[${key}]`, "must be a string", value));
      continue;
    }
    for (const msg of isValidLabelValue(value)) errs.push(fieldError("FieldValueInvalid", path, msg, value));
  }
  return errs;
}

/** The total size of annotations in bytes (keys plus values, UTF-8), as Kubernetes counts it. */
export function annotationsSize(annotations: Record<string, string>): number {
  let total = 0;
  for (const [key, value] of Object.entries(annotations)) {
    total += Buffer.byteLength(key, "utf8") + Buffer.byteLength(String(value), "utf8");
  }
  return total;
}

/**
 * Annotation keys are qualified names, compared case-insensitively; values are
 * free, but all keys and values together must fit in 256 KiB.
 */
export function validateAnnotations(
  annotations: Record<string, string> | undefined | null,
  path = "metadata.annotations",
): FieldError[] {
  const errs: FieldError[] = [];
  if (!annotations) return errs;
  for (const [key, value] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(key.toLowerCase())) errs.push(fieldError("FieldValueInvalid", path, msg, key));
    if (typeof value !== "string") {
      errs.push(fieldError("FieldValueTypeInvalid", `${path}[${key}]`, "must be a string", value));
    }
  }
  if (annotationsSize(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) {
    errs.push(fieldError("FieldValueTooLong", path, `may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT_BYTES} bytes`));
  }
  return errs;
}

/**
 * A finalizer is a qualified name; without a `domain/` prefix it must be one of
 * the standard finalizers (`standard`, default STANDARD_FINALIZERS).
 */
export function validateFinalizerName(
  name: string,
  path = "metadata.finalizers",
  standard: readonly string[] = STANDARD_FINALIZERS,
): FieldError[] {
  const errs = isQualifiedName(name).map((msg) => fieldError("FieldValueInvalid", path, msg, name));
  if (errs.length === 0 && !name.includes("/") && !standard.includes(name)) {
    errs.push(
      fieldError(
        "FieldValueInvalid",
        path,
        "name is neither a standard finalizer name nor is it fully qualified",
        name,
      ),
    );
  }
  return errs;
}

/** Every finalizer of a list, each checked by validateFinalizerName. */
export function validateFinalizers(
  finalizers: readonly string[] | undefined | null,
  path = "metadata.finalizers",
  standard: readonly string[] = STANDARD_FINALIZERS,
): FieldError[] {
  const errs: FieldError[] = [];
  for (const name of finalizers ?? []) {
    if (typeof name !== "string") {
      errs.push(fieldError("FieldValueTypeInvalid", path, "must be a string", name));
      continue;
    }
    errs.push(...validateFinalizerName(name, path, standard));
  }
  return errs;
}

/** The version part of an apiVersion (`group/version` or `version`), or "" when malformed. */
function versionOf(apiVersion: string): string {
  const parts = apiVersion.split("/");
  if (parts.length === 1) return parts[0]!;
  if (parts.length === 2) return parts[1]!;
  return "";
}

function validateOwnerReference(ref: Partial<OwnerReference>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = typeof ref.apiVersion === "string" ? ref.apiVersion : "";
  if (versionOf(apiVersion) === "") {
    errs.push(fieldError("FieldValueInvalid", `${path}.apiVersion`, "version must not be empty", apiVersion));
  }
  if (typeof ref.kind !== "string" || ref.kind === "") {
    errs.push(fieldError("FieldValueInvalid", `${path}.kind`, "kind must not be empty", ref.kind ?? ""));
  }
  if (typeof ref.name !== "string" || ref.name === "") {
    errs.push(fieldError("FieldValueInvalid", `${path}.name`, "name must not be empty", ref.name ?? ""));
  }
  if (typeof ref.uid !== "string" || ref.uid === "") {
    errs.push(fieldError("FieldValueInvalid", `${path}.uid`, "uid must not be empty", ref.uid ?? ""));
  }
  return errs;
}

/**
 * Each owner reference needs apiVersion (with a version), kind, name and uid;
 * at most one may say `controller: true`. Paths are unindexed, as Kubernetes
 * reports them (`metadata.ownerReferences.uid`).
 */
export function validateOwnerReferences(
  refs: readonly Partial<OwnerReference>[] | undefined | null,
  path = "metadata.ownerReferences",
): FieldError[] {
  const errs: FieldError[] = [];
  let controller = "";
  for (const ref of refs ?? []) {
    if (typeof ref !== "object" || ref === null || Array.isArray(ref)) {
      errs.push(fieldError("FieldValueTypeInvalid", path, "must be an object", ref));
      continue;
    }
    errs.push(...validateOwnerReference(ref, path));
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (controller !== "") {
        errs.push(
          fieldError(
            "FieldValueInvalid",
            path,
            `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${current}`,
            refs,
          ),
        );
      } else {
        controller = current;
      }
    }
  }
  return errs;
}
