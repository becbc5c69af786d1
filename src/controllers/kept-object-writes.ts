import { ApiError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { systemContext } from "../registry/request-context.js";
import type { Store } from "../registry/store.js";

/**
 * How a controller writes the object it keeps something for (a space, a virtual cluster
 * instance, the status of a project or a user): a guaranteedUpdate as the system under the controller's field manager, where an
 * object deleted meanwhile is no failure, since nothing is left to write to.
 */

/** A change of an object: the changed object, or undefined for no write. */
export type ObjectChange = (obj: KubeObject) => KubeObject | undefined;

/** Writes `change` to `obj` (its main resource or status); undefined when the object is gone. */
export async function updateUnlessGone(
  store: Pick<Store, "guaranteedUpdate">,
  obj: KubeObject,
  write: { subresource: "" | "status"; fieldManager: string },
  change: ObjectChange,
): Promise<KubeObject | undefined> {
  try {
    const { namespace, name = "" } = obj.metadata;
    return await store.guaranteedUpdate(
      systemContext(),
      namespace,
      name,
      change,
      write.subresource,
      write.fieldManager,
    );
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw err;
  }
}

/** The change that takes `finalizer` away (no write when the object does not hold it). */
export function removeFinalizer(finalizer: string): ObjectChange {
  return (obj) => {
    const finalizers = obj.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) return undefined;
    obj.metadata.finalizers = finalizers.filter((f) => f !== finalizer);
    return obj;
  };
}
