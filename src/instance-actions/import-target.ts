import { errors, type FieldError, fieldError } from "../api/errors.js";
import { GROUP, isPlainObject } from "../api/object.js";
import type { ClusterClient } from "../clusters/cluster-connection.js";
import type { EndpointPolicy } from "../clusters/endpoint-policy.js";
import { projectNamespace } from "../kinds/project/project.js";
import type { Registry } from "../registry/registry.js";
import { type Authorize, authorizeClusterAdminister, authorizeClusterUse } from "./action-request.js";
import { connect } from "./cluster-calls.js";

/**
 * The steps an import of a space and of a virtual cluster share, before each looks on the
 * cluster for what it imports: the body's source read, and the project, the cluster and the
 * caller's rights on both checked.
 */

/** What an import's body says to take: where it is, and the instance's name (by default the source's). */
export interface ImportSource {
  name: string;
  cluster: string;
  /** The source's namespace on the cluster, for a kind that lives in one. */
  namespace: string;
  importName: string;
}

/** An import's request: its kind, the body's field naming the source, the source's required fields. */
export interface ImportRequest {
  requestKind: string;
  sourceField: string;
  required: ReadonlyArray<"name" | "namespace" | "cluster">;
}

/** The body's source: each required field a non-empty string, `importName` a string when given; 422 naming each that is not. */
export function readImportSource(body: Record<string, unknown>, request: ImportRequest, project: string): ImportSource {
  const { sourceField } = request;
  const source = isPlainObject(body[sourceField]) ? (body[sourceField] as Record<string, unknown>) : {};
  const errs: FieldError[] = [];
  for (const field of request.required) {
    if (typeof source[field] !== "string" || source[field] === "") {
      errs.push(fieldError("FieldValueRequired", `${sourceField}.${field}`, "must be specified"));
    }
  }
  if (source.importName !== undefined && typeof source.importName !== "string") {
    errs.push(fieldError("FieldValueInvalid", `${sourceField}.importName`, "must be a string", source.importName));
  }
  if (errs.length) throw errors.invalid(request.requestKind, GROUP, project, errs);
  const name = source.name as string;
  return {
    name,
    cluster: source.cluster as string,
    namespace: (source.namespace as string | undefined) ?? "",
    importName: (source.importName as string | undefined) || name,
  };
}

/**
 * The project's namespace and a client of the cluster, once the project and the cluster exist
 * (404 each) and the caller may use and administer the cluster and create `resource` in the
 * project (403). An import hands its caller what the platform finds on the cluster with its own
 * credentials (a namespace to own, a virtual cluster's CA), which nothing on the platform says
 * is theirs: only who administers the cluster may take it (`takesOver` says what, in the 403).
 * The client connects only where `endpoints` allows (503 `EndpointNotAllowed` otherwise).
 */
export async function importTarget(
  registry: Registry,
  authorize: Authorize,
  endpoints: EndpointPolicy,
  target: {
    project: string;
    cluster: string;
    resource: string;
    /** What the import takes over on the cluster, as the 403 says it. */
    takesOver: string;
  },
): Promise<{ namespace: string; client: ClusterClient }> {
  const namespace = projectNamespace(target.project);
  const project = await registry.store("projects").read(undefined, target.project);
  if (!project) throw errors.notFound({ group: GROUP, resource: "projects" }, target.project);
  const cluster = await registry.store("clusters").read(undefined, target.cluster);
  if (!cluster) throw errors.notFound({ group: GROUP, resource: "clusters" }, target.cluster);
  await authorizeClusterUse(authorize, target.cluster, cluster);
  await authorizeClusterAdminister(authorize, target.cluster, cluster, `importing ${target.takesOver} needs`);
  await authorize({ verb: "create", resource: target.resource, subresource: "", namespace, name: "" });
  return { namespace, client: await connect(registry, cluster, endpoints) };
}
