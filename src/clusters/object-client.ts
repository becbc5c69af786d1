import type { Configuration, HttpMethod, KubeConfig, RequestContext } from "@kubernetes/client-node";
import { errors } from "../api/errors.js";

/**
 * The platform's one client for objects on a connected cluster (or inside a virtual cluster): any
 * kind, built-in or custom, sent and read as plain JSON, exactly as written.
 *
 * Why not the library's KubernetesObjectApi: it converts built-in kinds through its generated
 * typed models both ways, which renames JSON fields that are reserved words (a LimitRange's
 * `default` is read back as `_default`, and never written) and drops what its models do not know
 * (a NetworkPolicy's `ingress[].from`, turning a restricted policy into allow-all). Only the
 * transport is the library's: the Configuration `KubeConfig.makeApiClient` builds (the cluster's
 * server, and the KubeConfig itself as the authentication that sets the TLS agent and the
 * credentials, a subclass's override included, inside-client.ts), so TLS, credentials and the
 * endpoint policy are those of every other call to that cluster.
 */

/** A Kubernetes object as JSON: only what every object has is typed; every other field is kept as is. */
export interface RawObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

/** Which object: its kind, name and, for a namespaced kind, namespace. */
export interface ObjectName {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** A kind as the cluster serves it (its discovery document). */
export interface ServedKind {
  /** The resource's plural name in URLs. */
  name: string;
  namespaced: boolean;
}

/**
 * The cluster answered with an error status. `code` and `body` (the cluster's Status, as text) are
 * where the library's ApiException has them, which classifyError (cluster-connection.ts) reads.
 */
export class ClusterAnswerError extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
  ) {
    super(`the cluster answered ${code}`);
    this.name = "ClusterAnswerError";
  }
}

export class ClusterObjectClient {
  /** The discovery document of each group version asked for, kept for the client's life (one pass). */
  private readonly served = new Map<string, Array<ServedKind & { kind: string }>>();

  /** Built by `KubeConfig.makeApiClient`, which hands it the Configuration; use `ClusterObjectClient.for`. */
  constructor(private readonly config: Configuration) {}

  /** A client for the current context of `kubeConfig`. */
  static for(kubeConfig: KubeConfig): ClusterObjectClient {
    return kubeConfig.makeApiClient(ClusterObjectClient);
  }

  /**
   * How the cluster serves `kind` of `apiVersion`; undefined when it serves no such kind, or no such
   * group version at all.
   */
  async resource(apiVersion: string, kind: string): Promise<ServedKind | undefined> {
    const find = () => this.served.get(apiVersion)?.find((r) => r.kind === kind);
    // Looked up again when missing: a kind a CRD added since the last look.
    if (find()) return find();
    // Never part of a path unless it is a group version: a template's "../.." names nothing served.
    if (!GROUP_VERSION.test(apiVersion)) return undefined;
    let list: { resources?: Array<{ name: string; kind: string; namespaced: boolean }> };
    try {
      list = (await this.request("GET", groupVersionPath(apiVersion))) as typeof list;
    } catch (err) {
      if (err instanceof ClusterAnswerError && err.code === 404) return undefined;
      throw err;
    }
    // Subresources ("pods/status") carry their parent's kind: only the resources themselves.
    const resources = (list.resources ?? []).filter((r) => !r.name.includes("/"));
    this.served.set(
      apiVersion,
      resources.map(({ name, kind, namespaced }) => ({ name, kind, namespaced })),
    );
    return find();
  }

  /** The object as the cluster has it; a ClusterAnswerError 404 when there is none. */
  async get(ref: ObjectName): Promise<RawObject> {
    return (await this.request("GET", await this.objectPath(ref))) as RawObject;
  }

  /**
   * The objects of a kind (in `namespace`, or in every namespace and cluster-scoped) matching
   * `labelSelector`. A list's items carry no apiVersion and kind, as the cluster sends them.
   */
  async list(
    apiVersion: string,
    kind: string,
    options: { namespace?: string; labelSelector?: string } = {},
  ): Promise<RawObject[]> {
    const resource = await this.servedOrNotFound(apiVersion, kind);
    const scope =
      resource.namespaced && options.namespace ? `/namespaces/${encodeURIComponent(options.namespace)}` : "";
    const query: Record<string, string> = options.labelSelector ? { labelSelector: options.labelSelector } : {};
    const list = (await this.request("GET", `${groupVersionPath(apiVersion)}${scope}/${resource.name}`, query)) as {
      items?: RawObject[];
    };
    return list.items ?? [];
  }

  /**
   * Server-side apply of `obj` as written, under `fieldManager`, forced (the platform's fields are
   * its own, whoever wrote them since); returns the object as the cluster then has it.
   */
  async apply(obj: RawObject & ObjectRefFields, fieldManager: string): Promise<RawObject> {
    const path = await this.objectPath(nameOf(obj));
    const query = { fieldManager, force: "true" };
    // JSON is YAML: the apply content type takes either.
    return (await this.request("PATCH", path, query, obj, "application/apply-patch+yaml")) as RawObject;
  }

  /** Deletes the object (the cluster's default propagation); a ClusterAnswerError 404 when there is none. */
  async delete(ref: ObjectName): Promise<void> {
    await this.request("DELETE", await this.objectPath(ref));
  }

  private async servedOrNotFound(apiVersion: string, kind: string): Promise<ServedKind> {
    const resource = await this.resource(apiVersion, kind);
    if (resource) return resource;
    throw new ClusterAnswerError(
      404,
      JSON.stringify({ kind: "Status", message: `the cluster serves no kind ${kind} in ${apiVersion}` }),
    );
  }

  private async objectPath(ref: ObjectName): Promise<string> {
    // A URL's dot segments would name another path (".." the collection): never sent.
    if (["", ".", ".."].includes(ref.name))
      throw errors.badRequest(`${ref.kind} name ${JSON.stringify(ref.name)} is not valid`);
    const resource = await this.servedOrNotFound(ref.apiVersion, ref.kind);
    if (resource.namespaced && !ref.namespace) {
      // Never the context's namespace, as the library would: the caller names where each object goes.
      throw errors.badRequest(`${ref.kind} ${ref.name} is namespaced: it needs a namespace`);
    }
    const scope = resource.namespaced ? `/namespaces/${encodeURIComponent(ref.namespace ?? "")}` : "";
    return `${groupVersionPath(ref.apiVersion)}${scope}/${resource.name}/${encodeURIComponent(ref.name)}`;
  }

  /** One call with a JSON body (or none); the answer's JSON, or a ClusterAnswerError for a status outside 2xx. */
  private async request(
    method: "GET" | "PATCH" | "DELETE",
    path: string,
    query: Record<string, string> = {},
    body?: unknown,
    contentType = "application/json",
  ): Promise<unknown> {
    const context: RequestContext = this.config.baseServer.makeRequestContext(path, method as HttpMethod);
    context.setHeaderParam("Accept", "application/json");
    for (const [name, value] of Object.entries(query)) context.setQueryParam(name, value);
    if (body !== undefined) {
      context.setHeaderParam("Content-Type", contentType);
      context.setBody(JSON.stringify(body));
    }
    // The KubeConfig: its TLS agent (CA, client certificate, the endpoint policy's lookup) and credentials.
    await this.config.authMethods.default?.applySecurityAuthentication(context);
    const response = await this.config.httpApi.send(context).toPromise();
    const text = await response.body.text();
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299) {
      throw new ClusterAnswerError(response.httpStatusCode, text);
    }
    return text ? JSON.parse(text) : undefined;
  }
}

/** The fields of an object that say which it is. */
type ObjectRefFields = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };

function nameOf(obj: ObjectRefFields): ObjectName {
  const { apiVersion, kind, metadata } = obj;
  return { apiVersion, kind, name: metadata.name, ...(metadata.namespace ? { namespace: metadata.namespace } : {}) };
}

/** `v1`, or `<group>/<version>` with a DNS subdomain as the group. */
const GROUP_VERSION = /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[a-z0-9]+$/;

/** `/api/v1` for the core group, `/apis/<group>/<version>` for the others. */
function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}
