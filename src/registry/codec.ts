import type { KubeObject } from "../api/object.js";
import { withResourceVersion } from "./shared-codec.js";

/**
 * Objects are stored as JSON without metadata.resourceVersion: the store's
 * modRevision is the resourceVersion, filled in on every read (as kube-apiserver does).
 */
export function encodeObject(obj: KubeObject): Buffer {
  const { resourceVersion: _drop, ...metadata } = obj.metadata;
  return Buffer.from(JSON.stringify({ ...obj, metadata }));
}

/**
 * The bytes an object fresh from a write was stored as (without resourceVersion), so that the
 * response can be those bytes with resourceVersion spliced in rather than a second
 * JSON.stringify. Only objects the write returns unchanged are remembered.
 */
const storedAs = new WeakMap<KubeObject, Buffer>();

export function rememberStoredBytes(obj: KubeObject, bytes: Buffer): void {
  storedAs.set(obj, bytes);
}

/**
 * The API JSON of an object a write returned: its stored bytes with its resourceVersion spliced
 * in, or undefined when they were not remembered (or cannot be spliced): then stringify it.
 */
export function writtenJsonBytes(obj: KubeObject): Buffer | undefined {
  const stored = storedAs.get(obj);
  return stored && withResourceVersion(stored, Number(obj.metadata.resourceVersion));
}

/** Parses a client-supplied resourceVersion; undefined when absent or empty. NaN-safe: throws on garbage. */
export function parseResourceVersion(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === "") return undefined;
  if (!/^\d+$/.test(rv)) throw new Error(`invalid resource version "${rv}"`);
  return Number(rv);
}
