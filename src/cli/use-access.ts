import type { ApiClient, Json } from "./api-client.js";
import { apiPath } from "./common.js";
import { CliError } from "./errors.js";

const SSAR = "/kubernetes/management/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

/** Whether the caller may `use` the object (a SelfSubjectAccessReview). */
export async function mayUse(client: ApiClient, resource: string, name: string, namespace?: string): Promise<boolean> {
  const review: Json = await client.post(SSAR, {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    spec: {
      resourceAttributes: {
        group: "management.platform",
        verb: "use",
        resource,
        name,
        ...(namespace ? { namespace } : {}),
      },
    },
  });
  return review?.status?.allowed === true;
}

/** The object `platform use` is about to write a context for, and how to name it to the user. */
export interface UseTarget {
  resource: "clusters" | "virtualclusterinstances" | "spaceinstances";
  name: string;
  namespace?: string;
  /** What the user calls it: `cluster`, `virtual cluster`. */
  noun: string;
  /** Where it is, for messages: `in project web`. */
  scope?: string;
}

/**
 * Throws unless the object exists and the caller may `use` it, before any kubeconfig is touched.
 * The access review alone is not enough: whoever may use every cluster (an admin) is allowed a
 * name that does not exist, and would get a context that fails on its first request.
 */
export async function requireUsable(client: ApiClient, target: UseTarget): Promise<void> {
  const { resource, name, namespace, noun, scope } = target;
  const where = scope ? ` ${scope}` : "";
  const [exists, allowed] = await Promise.all([
    existsIfReadable(client, apiPath(resource, name, namespace)),
    mayUse(client, resource, name, namespace),
  ]);
  if (exists === false) throw new CliError(`${noun} ${name} not found${where}`);
  if (!allowed) {
    // Without read access the caller cannot learn whether it exists, and is not told.
    throw new CliError(`you may not use ${noun} ${name}${where}${exists ? "" : " (or it does not exist)"}`);
  }
}

/** true or false when the caller may read the object; undefined when it may not read it. */
async function existsIfReadable(client: ApiClient, path: string): Promise<boolean | undefined> {
  try {
    await client.get(path);
    return true;
  } catch (err) {
    if (err instanceof CliError && err.status === 404) return false;
    if (err instanceof CliError && err.status === 403) return undefined;
    throw err;
  }
}
