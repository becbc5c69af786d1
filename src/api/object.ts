/** The shapes every API object shares (k8s.io/apimachinery ObjectMeta and friends). */

export const GROUP = "management.platform";
export const VERSION = "v1";
export const API_VERSION = `${GROUP}/${VERSION}`;
/** The path prefix of the whole management API. */
export const API_PREFIX = "/kubernetes/management";

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: "Apply" | "Update";
  apiVersion?: string;
  time?: string;
  fieldsType?: "FieldsV1";
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  selfLink?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const lastStamp = { second: Number.NaN, text: "" };

/** RFC 3339 in UTC with second precision, as Kubernetes serialises metav1.Time. */
export function nowTimestamp(now: Date = new Date()): string {
  // Every write stamps the time (creationTimestamp, managedFields): format once per second.
  const second = Math.floor(now.getTime() / 1000);
  if (second !== lastStamp.second) {
    lastStamp.text = `${now.toISOString().slice(0, 19)}Z`;
    lastStamp.second = second;
  }
  return lastStamp.text;
}

/**
 * Sets an own property, even one named `__proto__` (plain assignment to `__proto__` sets the
 * prototype instead, and the key is silently lost). For maps whose keys come from clients.
 */
export function setOwnProperty(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * The spec of an object of a kind, typed as that kind's schema says (`Static<typeof XSpec>`,
 * exported beside each kind): every object passed its kind's schema check on the way in
 * (Store.admitBody), so this is the one place that reads an unknown spec as the kind's.
 */
export function specOf<S extends object>(obj: { spec?: Record<string, unknown> } | undefined): Partial<S> {
  return (obj?.spec ?? {}) as Partial<S>;
}

/** The status of an object of a kind, typed as that kind's schema says (see specOf). */
export function statusOf<S extends object>(obj: { status?: Record<string, unknown> } | undefined): Partial<S> {
  return (obj?.status ?? {}) as Partial<S>;
}
