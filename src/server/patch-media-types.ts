import type { PatchType } from "../registry/options.js";

/**
 * The PATCH content types served, and the patch type each names: JSON Patch, merge patch and
 * server-side apply; never strategic merge (kubectl then computes a merge patch). The one list
 * for decoding (body.ts), 415 answers and the OpenAPI document.
 */
const PATCH_MEDIA_TYPES: Readonly<Record<string, PatchType>> = {
  "application/json-patch+json": "json",
  "application/merge-patch+json": "merge",
  "application/apply-patch+yaml": "apply",
};

/** Accepted for apply too (kube-apiserver does), but not advertised. */
const APPLY_JSON = "application/apply-patch+json";

export const ADVERTISED_PATCH_TYPES: readonly string[] = Object.keys(PATCH_MEDIA_TYPES);

/** The patch type a Content-Type names, or undefined when it is not a served one. */
export function patchTypeOf(mediaType: string): PatchType | undefined {
  return mediaType === APPLY_JSON ? "apply" : PATCH_MEDIA_TYPES[mediaType];
}
