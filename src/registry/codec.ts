import type { KubeObject } from "../api/object.js";

/**
 * Objects are stored as JSON without metadata.resourceVersion: the store's
 * modRevision is the resourceVersion, filled in on every read (as kube-apiserver does).
 */
export function encodeObject(obj: KubeObject): Buffer {
  const { resourceVersion: _drop, ...metadata } = obj.metadata;
  return Buffer.from(JSON.stringify({ ...obj, metadata }));
}

/** kube-apiserver parses a resourceVersion as a uint64: more than that is not a resourceVersion. */
const MAX_RESOURCE_VERSION = 2n ** 64n - 1n;

/**
 * Parses a client-supplied resourceVersion; undefined when absent or empty; throws on anything
 * but decimal digits of a uint64 (kube-apiserver's parse). One above Number.MAX_SAFE_INTEGER is a
 * valid resourceVersion that no revision of this store reaches: it parses as Infinity, ahead of
 * every revision and equal to none, never as a rounded number that could match a real one.
 * Messages quote it with resourceVersionDigits, not this number.
 */
export function parseResourceVersion(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === "") return undefined;
  // Leading zeros parse, as with Go's ParseUint; beyond 20 significant digits it is no uint64,
  // decided before BigInt, whose parse of a body's megabytes of digits would take seconds.
  const significant = rv.replace(/^0+(?=\d)/, "");
  if (!/^\d+$/.test(rv) || significant.length > 20 || BigInt(significant) > MAX_RESOURCE_VERSION) {
    throw new Error(`invalid resource version "${rv}"`);
  }
  const revision = Number(significant);
  return Number.isSafeInteger(revision) ? revision : Number.POSITIVE_INFINITY;
}

/** A valid resourceVersion's value in exact digits, as kube-apiserver prints the uint64 it parsed. */
export function resourceVersionDigits(rv: string): string {
  return BigInt(rv).toString();
}
