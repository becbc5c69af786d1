import type { KindInfo } from "../kinds";
import { API, AUTHZ_API, request, send } from "./client";
import type { KubeList, KubeObject } from "./types";

export function collectionPath(kind: KindInfo, namespace?: string): string {
  return kind.namespaced && namespace ? `${API}/namespaces/${enc(namespace)}/${kind.plural}` : `${API}/${kind.plural}`;
}

export function objectPath(kind: KindInfo, name: string, namespace?: string): string {
  return `${collectionPath(kind, namespace)}/${enc(name)}`;
}

function enc(s: string): string {
  return encodeURIComponent(s);
}

export interface ListQuery {
  limit: number;
  continueToken?: string;
  labelSelector?: string;
}

export function listObjects(kind: KindInfo, q: ListQuery, signal?: AbortSignal): Promise<KubeList> {
  const params = new URLSearchParams({ limit: String(q.limit) });
  if (q.continueToken) params.set("continue", q.continueToken);
  if (q.labelSelector) params.set("labelSelector", q.labelSelector);
  return request<KubeList>("GET", `${collectionPath(kind)}?${params}`, { signal });
}

export function getObject(kind: KindInfo, name: string, namespace?: string): Promise<KubeObject> {
  return request("GET", objectPath(kind, name, namespace));
}

export function createObject(kind: KindInfo, obj: KubeObject): Promise<KubeObject> {
  return request("POST", collectionPath(kind, obj.metadata.namespace), { body: withType(kind, obj) });
}

export function replaceObject(kind: KindInfo, obj: KubeObject): Promise<KubeObject> {
  return request("PUT", objectPath(kind, obj.metadata.name ?? "", obj.metadata.namespace), {
    body: withType(kind, obj),
  });
}

/** A JSON merge patch of the fields that changed; its metadata.resourceVersion makes a stale edit a 409. */
export function patchObject(
  kind: KindInfo,
  name: string,
  namespace: string | undefined,
  patch: Record<string, unknown>,
): Promise<KubeObject> {
  return request("PATCH", objectPath(kind, name, namespace), {
    body: patch,
    contentType: "application/merge-patch+json",
  });
}

export function deleteObject(
  kind: KindInfo,
  name: string,
  namespace: string | undefined,
  propagationPolicy: string,
): Promise<unknown> {
  return request("DELETE", objectPath(kind, name, namespace), {
    body: { apiVersion: "v1", kind: "DeleteOptions", propagationPolicy },
  });
}

function withType(kind: KindInfo, obj: KubeObject): KubeObject {
  return { ...obj, apiVersion: "management.platform/v1", kind: kind.kind };
}

export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: KubeObject;
}

/**
 * Follows a watch from resourceVersion until aborted, calling onEvent for each event. Ends
 * (resolves) when the server closes the stream; the caller lists again and starts over.
 */
export async function watchObjects(
  kind: KindInfo,
  resourceVersion: string,
  onEvent: (e: WatchEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const params = new URLSearchParams({ watch: "1", resourceVersion, allowWatchBookmarks: "true" });
  const res = await send("GET", `${collectionPath(kind)}?${params}`, { signal });
  const reader = res.body?.getReader();
  if (!reader) return;
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    let nl = buffered.indexOf("\n");
    while (nl >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) onEvent(JSON.parse(line) as WatchEvent);
      nl = buffered.indexOf("\n");
    }
  }
}

/** Whether the signed-in caller may do verb on the resource (SelfSubjectAccessReview). */
export async function mayI(
  verb: string,
  resource: string,
  options: { name?: string; namespace?: string; subresource?: string } = {},
): Promise<boolean> {
  const review = await request<{ status?: { allowed?: boolean } }>("POST", `${AUTHZ_API}/selfsubjectaccessreviews`, {
    body: {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { group: "management.platform", verb, resource, ...options } },
    },
  });
  return review.status?.allowed === true;
}

export async function whoAmI(): Promise<KubeObject> {
  return request("POST", `${API}/selves`, {
    body: { apiVersion: "management.platform/v1", kind: "Self", metadata: { name: "self" } },
  });
}
