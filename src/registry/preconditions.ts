/**
 * What a write requires of the stored object besides its resourceVersion, refused in
 * kube-apiserver's own words (clients and people read them as they come):
 *
 * - an update (PUT) whose body carries `metadata.uid` requires the stored object to have that uid
 *   (kube-apiserver's rest.DefaultUpdatedObjectInfo makes it a precondition): a client replacing an
 *   object from an old copy does not overwrite another object created since under the same name.
 *   kube-apiserver checks it in its storage layer, on the object as stored, before the
 *   resourceVersion and before validation; its 409 is the storage error, naming the storage key.
 * - a delete's `preconditions.uid` and `.resourceVersion` (rest.BeforeDelete): a 409 on the kind
 *   (`Team.management.platform`), not the resource, as kube-apiserver names it there.
 *
 * A patch has no uid precondition: a patch that changes the uid is 422 "field is immutable"
 * (metadata.ts), as from kube-apiserver.
 */
import { errors } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { REGISTRY_PREFIX } from "./keys.js";
import type { DeleteOptions } from "./options.js";
import { groupResource, type ResourceType } from "./resource-type.js";

/** The uid an update's body makes a precondition of: a non-empty string (kube ignores an empty one). */
export function updateUidPrecondition(body: KubeObject): string | undefined {
  const uid: unknown = body.metadata?.uid;
  return typeof uid === "string" && uid !== "" ? uid : undefined;
}

/**
 * Refuses (409) an update whose uid precondition `uid` the stored object `stored`, at storage key
 * `key`, does not meet. kube-apiserver's dry-run storage names the key without its `/registry`
 * prefix, and so does this answer on a dry run: the same request gets the same answer.
 */
export function checkUpdateUid(
  rt: ResourceType,
  uid: string | undefined,
  stored: KubeObject,
  key: string,
  dryRun: boolean,
): void {
  if (uid === undefined || uid === stored.metadata.uid) return;
  const shownKey = dryRun && key.startsWith(REGISTRY_PREFIX) ? key.slice(REGISTRY_PREFIX.length - 1) : key;
  throw errors.conflict(
    groupResource(rt),
    stored.metadata.name ?? "",
    // kube-apiserver's storage.StorageError of code ErrCodeInvalidObj (4), whose ResourceVersion
    // its precondition check leaves at 0.
    `StorageError: invalid object, Code: 4, Key: ${shownKey}, ResourceVersion: 0, AdditionalErrorMsg: ` +
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${stored.metadata.uid}`,
  );
}

/** Refuses (409) a delete whose preconditions the stored object `obj` does not meet; the uid is checked first. */
export function checkDeletePreconditions(rt: ResourceType, obj: KubeObject, options: DeleteOptions): void {
  const p = options.preconditions;
  if (!p) return;
  const onKind = { group: rt.group, resource: rt.kind };
  const name = obj.metadata.name ?? "";
  if (p.uid !== undefined && p.uid !== obj.metadata.uid) {
    throw errors.conflict(
      onKind,
      name,
      `the UID in the precondition (${p.uid}) does not match the UID in record (${obj.metadata.uid}). The object might have been deleted and then recreated`,
    );
  }
  // Compared as text, as kube-apiserver compares them: "0042" is not 42 here.
  if (p.resourceVersion !== undefined && p.resourceVersion !== obj.metadata.resourceVersion) {
    throw errors.conflict(
      onKind,
      name,
      `the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${obj.metadata.resourceVersion}). The object might have been modified`,
    );
  }
}
