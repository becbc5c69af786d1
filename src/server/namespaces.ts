import { Type } from "@sinclair/typebox";
import type { KubeObject } from "../api/object.js";
import { parseFieldSelector } from "../api/selectors/field-selector.js";
import { parseLabelSelector } from "../api/selectors/label-selector.js";
import type { Authorizer } from "../authz/contract.js";
import { ageColumn, nameColumn } from "../kinds/define.js";
import { PROJECT_NAMESPACE_PREFIX, projectNamespace } from "../kinds/project/project.js";
import type { Registry } from "../registry/registry.js";
import { systemContext, type UserInfo } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";

/**
 * The core group's Namespaces, read-only, as kubectl (`get ns`) and kubens read them: not
 * stored, but the namespaces that exist here, `platform` (shared secrets) and each project's
 * `p-<project>` (its virtual cluster instances), projected from the projects. A caller sees
 * those it can read something in: where it may get the objects of a namespaced kind of the
 * management group (a role, project membership), or one object (access rules on it). Events do not count: every caller reads them, each
 * shown by its object.
 */

/** The namespace of the platform's own shared secrets; it always exists. */
export const PLATFORM_NAMESPACE = "platform";

/** The Namespace kind, for discovery, Tables and watch metrics; never stored, nor in any registry. */
export const namespaceResource: ResourceType = {
  group: "",
  version: "v1",
  kind: "Namespace",
  listKind: "NamespaceList",
  plural: "namespaces",
  singular: "namespace",
  shortNames: ["ns"],
  categories: [],
  namespaced: false,
  verbs: ["get", "list", "watch"],
  hasStatus: false,
  schema: Type.Object({}, { additionalProperties: true }),
  description: "A namespace of the platform: `platform`, or a project's `p-<project>`. Read-only.",
  strategy: {},
  columns: [
    nameColumn(),
    {
      name: "Status",
      type: "string",
      description: "Active, or Terminating while its project is deleted.",
      priority: 0,
      cell: (o) => (o.status as { phase?: string } | undefined)?.phase,
    },
    ageColumn(),
  ],
};

/** The label kube-apiserver puts on every namespace, and the project a namespace belongs to. */
const NAME_LABEL = "kubernetes.io/metadata.name";
const PROJECT_LABEL = "management.platform/project";

function namespaceObject(name: string, from?: KubeObject, project?: string): KubeObject {
  const terminating = !!from?.metadata.deletionTimestamp;
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name,
      ...(from?.metadata.creationTimestamp ? { creationTimestamp: from.metadata.creationTimestamp } : {}),
      ...(from?.metadata.resourceVersion ? { resourceVersion: from.metadata.resourceVersion } : {}),
      labels: { [NAME_LABEL]: name, ...(project ? { [PROJECT_LABEL]: project } : {}) },
    },
    spec: { finalizers: ["kubernetes"] },
    status: { phase: terminating ? "Terminating" : "Active" },
  };
}

/** The namespace of a project, as a Namespace object. */
export function projectNamespaceObject(project: KubeObject): KubeObject {
  const name = project.metadata.name ?? "";
  return namespaceObject(projectNamespace(name), project, name);
}

export function platformNamespaceObject(): KubeObject {
  return namespaceObject(PLATFORM_NAMESPACE);
}

/** Whether a namespace matches a list's label and field selectors (metadata.name, status.phase). */
export function namespaceSelector(labelSelector?: string, fieldSelector?: string): (ns: KubeObject) => boolean {
  const labels = parseLabelSelector(labelSelector);
  const fields = parseFieldSelector(fieldSelector, ["metadata.name", "status.phase"]);
  return (ns) =>
    labels(ns.metadata.labels ?? {}) &&
    fields((field) => (field === "metadata.name" ? ns.metadata.name : (ns.status as { phase?: string }).phase));
}

/** Which namespaces a caller sees, and every namespace there is. */
export class NamespaceView {
  constructor(
    private readonly registry: Registry,
    private readonly authorizer: Authorizer,
  ) {}

  /** Every namespace, `platform` first, then the projects' in name order. */
  async all(): Promise<{ items: KubeObject[]; resourceVersion: string }> {
    const projects = await this.registry.store("projects").list(systemContext(), undefined, {});
    return {
      items: [platformNamespaceObject(), ...projects.items.map(projectNamespaceObject)],
      resourceVersion: projects.metadata.resourceVersion ?? "",
    };
  }

  /** The namespace of this name, if it exists. */
  async get(name: string): Promise<KubeObject | undefined> {
    if (name === PLATFORM_NAMESPACE) return platformNamespaceObject();
    if (!name.startsWith(PROJECT_NAMESPACE_PREFIX)) return undefined;
    try {
      const project = await this.registry
        .store("projects")
        .get(systemContext(), undefined, name.slice(PROJECT_NAMESPACE_PREFIX.length));
      return projectNamespaceObject(project);
    } catch (err) {
      if ((err as { reason?: string }).reason === "NotFound") return undefined;
      throw err;
    }
  }

  /** Whether `user` can read something in `namespace`. */
  async visible(user: UserInfo, namespace: string): Promise<boolean> {
    const kinds = this.registry.resourceTypes().filter((rt) => rt.namespaced && rt.verbs.includes("list"));
    const attrs = (resource: string, group: string, verb: string) => ({
      verb,
      apiGroup: group,
      resource,
      subresource: "",
      namespace,
      name: "",
      resourceRequest: true,
    });
    // A get of any object of a kind there (roles, project membership). Not a list: lists are
    // allowed to everyone and filtered to what the caller may get.
    for (const rt of kinds) {
      if ((await this.authorizer.authorize(user, attrs(rt.plural, rt.group, "get"))).allowed) return true;
    }
    // Rights on single objects (access rules): one object the caller may get is enough.
    for (const rt of kinds) {
      const canSee = this.authorizer.visibleTo?.(user, attrs(rt.plural, rt.group, "get"));
      if (!canSee) continue;
      const objects = await this.registry.store(rt.plural).list(systemContext(), namespace, {});
      if (objects.items.some(canSee)) return true;
    }
    return false;
  }
}
