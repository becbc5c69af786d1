import { errors, isApiError } from "../api/errors.js";
import { API_VERSION, GROUP, isPlainObject, type KubeObject } from "../api/object.js";
import { platformAttributes } from "../authz/contract.js";
import { decodeObjectBody } from "../server/body.js";
import type { SubresourceHandler } from "../server/resource-handler.js";
import type { ResourcePath } from "../server/resource-path.js";
import { requestInfoVerb, type VerbCall } from "../server/resource-verbs.js";

/**
 * How the actions of spaces and virtual clusters (import, move, kube config) read a request and
 * ask for the rights around it: the body as an object of the action's kind, the verb of a method
 * the action does not serve, and `use` on the cluster the action reaches into.
 */

export type Authorize = Parameters<SubresourceHandler>[0]["authorize"];

/** The body as an object of `kind` (a JSON or YAML body; its apiVersion and kind, when given, must match). */
export function decodeBody(contentType: string | undefined, raw: Buffer, kind: string): Record<string, unknown> {
  const value = decodeObjectOf(contentType, raw, kind);
  return { ...value, apiVersion: API_VERSION, kind };
}

/** The body as an object, `null` fields left out, its apiVersion and kind (when given) checked against `kind`. */
export function decodeObjectOf(contentType: string | undefined, raw: Buffer, kind: string): Record<string, unknown> {
  const value = withoutNulls(decodeObjectBody(contentType, raw).value);
  if (!isPlainObject(value)) throw errors.badRequest("the request body must be an object");
  checkKind(value, kind);
  return value;
}

/**
 * The action bodies have no nullable field: a `null` is the field left out, as kube-apiserver
 * reads it (src/registry/schema-check.ts does the same for the kinds' bodies).
 */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isPlainObject(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    // Defined, not assigned: a `__proto__` key stays a key and never becomes the prototype.
    if (field !== null)
      Object.defineProperty(kept, key, {
        value: withoutNulls(field),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return kept;
}

function checkKind(body: Record<string, unknown>, kind: string): void {
  if (body.apiVersion !== undefined && body.apiVersion !== API_VERSION) {
    throw errors.badRequest(
      `the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${API_VERSION})`,
    );
  }
  if (body.kind !== undefined && body.kind !== kind) {
    throw errors.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${kind})`);
  }
}

/**
 * A method the action does not serve: its verb authorized first, as kube-apiserver authorizes
 * before go-restful answers, so the 403 of a caller not allowed it comes before the 405.
 */
export async function refusedMethod(path: ResourcePath, method: string, authorize: VerbCall["authorize"]) {
  await authorize({ verb: requestInfoVerb(method, path) });
  return errors.methodNotAllowed();
}

/** Whether the caller holds what `attrs` asks (answered, never thrown as a 403): what an answer may name. */
export async function isAllowed(authorize: Authorize, attrs: Parameters<Authorize>[0]): Promise<boolean> {
  try {
    await authorize(attrs);
    return true;
  } catch (err) {
    if (isApiError(err, "Forbidden")) return false;
    throw err;
  }
}

/** `use` on a cluster: what reaching into it with its stored credentials needs (import, kube config). */
export async function authorizeClusterUse(authorize: Authorize, name: string, cluster: KubeObject): Promise<void> {
  await authorize(platformAttributes("use", "clusters", { name, object: cluster }));
}

/**
 * `administer` on a cluster: what an action needs when it makes the platform, with the cluster's
 * stored credentials, hand the caller something on the cluster that no object of the platform
 * guards (an existing namespace made a space, whose owner gets `admin` in it; a virtual cluster's
 * CA, which signs certificates for anyone inside it). `use` is the right to reach the cluster as
 * oneself, never to take over what others run there. 403 naming what it is needed for.
 */
export async function authorizeClusterAdminister(
  authorize: Authorize,
  name: string,
  cluster: KubeObject,
  needs: string,
): Promise<void> {
  try {
    await authorize(platformAttributes("administer", "clusters", { name, object: cluster }));
  } catch (err) {
    if (!isApiError(err, "Forbidden")) throw err;
    throw errors.forbidden({ group: GROUP, resource: "clusters" }, name, `${detailOf(err.message)}, which ${needs}`);
  }
}

/** The detail of a Forbidden message (`X is forbidden: DETAIL`). */
function detailOf(message: string): string {
  const at = message.indexOf(" is forbidden: ");
  return at < 0 ? message : message.slice(at + " is forbidden: ".length);
}
