import { type KubeObject, specOf } from "../../api/object.js";
import type { ClusterAccessSpec } from "../../kinds/cluster-access/cluster-access.js";
import {
  type ClusterRoleTemplateSpec,
  clusterRoleNameOf,
} from "../../kinds/cluster-role-template/cluster-role-template.js";
import { reachesCluster } from "../../kinds/cluster-selection.js";
import { teamIdentityOf } from "../../registry/impersonation-identity.js";

/**
 * What the platform keeps on one cluster for access inside it: the ClusterRole of every
 * ClusterRoleTemplate reaching the cluster, and for every ClusterAccess reaching it one binding
 * per template and namespace (a ClusterRoleBinding when it names no namespaces). Pure: the
 * controller applies what this returns and removes the labelled objects it does not list.
 */

export const RBAC_API_VERSION = "rbac.authorization.k8s.io/v1";
const RBAC_GROUP = "rbac.authorization.k8s.io";
/** Every object the platform writes into a cluster carries this label… */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY_VALUE = "platform";
/** …and one naming its owner: the template (ClusterRoles) or the ClusterAccess (bindings). */
export const TEMPLATE_LABEL = "management.platform/cluster-role-template";
export const ACCESS_LABEL = "management.platform/cluster-access";

export type RbacKind = "ClusterRole" | "ClusterRoleBinding" | "RoleBinding";

/** A manifest as server-side apply takes it. */
export interface RbacManifest {
  apiVersion: string;
  kind: RbacKind;
  metadata: { name: string; namespace?: string; labels: Record<string, string> };
  [field: string]: unknown;
}

export interface DesiredObject {
  kind: RbacKind;
  name: string;
  namespace?: string;
  clusterRoleTemplate: string;
  clusterAccess?: string;
  /** What to apply; absent when the grant cannot be written, `problem` saying why. */
  manifest?: RbacManifest;
  problem?: { reason: string; message: string };
}

export function desiredRbac(cluster: string, templates: KubeObject[], accesses: KubeObject[]): DesiredObject[] {
  const onCluster = new Set<string>();
  const out: DesiredObject[] = [];
  for (const t of sortedByName(templates)) {
    const spec = specOf<ClusterRoleTemplateSpec>(t);
    if (t.metadata.deletionTimestamp || !reachesCluster(spec.clusters, cluster)) continue;
    const template = t.metadata.name ?? "";
    onCluster.add(template);
    out.push({
      kind: "ClusterRole",
      name: clusterRoleNameOf(template),
      clusterRoleTemplate: template,
      manifest: clusterRole(template, spec),
    });
  }
  for (const a of sortedByName(accesses)) {
    const spec = specOf<ClusterAccessSpec>(a);
    if (a.metadata.deletionTimestamp || !reachesCluster(spec.clusters, cluster)) continue;
    const access = a.metadata.name ?? "";
    for (const template of spec.clusterRoleTemplates ?? []) {
      for (const namespace of spec.namespaces ?? [undefined]) {
        const kind = namespace === undefined ? "ClusterRoleBinding" : "RoleBinding";
        const name = bindingName(access, template);
        const entry: DesiredObject = { kind, name, namespace, clusterRoleTemplate: template, clusterAccess: access };
        if (onCluster.has(template)) {
          entry.manifest = binding(kind, name, namespace, access, template, spec);
        } else {
          entry.problem = {
            reason: "TemplateNotOnCluster",
            message: `ClusterRoleTemplate "${template}" does not exist or does not name cluster "${cluster}" in spec.clusters`,
          };
        }
        out.push(entry);
      }
    }
  }
  return out;
}

export function bindingName(access: string, template: string): string {
  return `platform:${access}:${template}`;
}

function clusterRole(template: string, spec: Partial<ClusterRoleTemplateSpec>): RbacManifest {
  const manifest: RbacManifest = {
    apiVersion: RBAC_API_VERSION,
    kind: "ClusterRole",
    metadata: {
      name: clusterRoleNameOf(template),
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [TEMPLATE_LABEL]: template },
    },
  };
  // An aggregated role's rules belong to the cluster's aggregation controller: applying them too
  // would fight it on every resync.
  if (spec.aggregationRule) manifest.aggregationRule = spec.aggregationRule;
  else manifest.rules = spec.rules ?? [];
  return manifest;
}

function binding(
  kind: RbacKind,
  name: string,
  namespace: string | undefined,
  access: string,
  template: string,
  spec: Partial<ClusterAccessSpec>,
): RbacManifest {
  // The identities the gateway impersonates: the user's name; a team's members carry its group,
  // and a team key acts as the user of the same name.
  const subjects = [
    ...(spec.users ?? []).map((u) => ({ kind: "User", apiGroup: RBAC_GROUP, name: u })),
    ...(spec.teams ?? []).flatMap((t) => [
      { kind: "Group", apiGroup: RBAC_GROUP, name: teamIdentityOf(t) },
      { kind: "User", apiGroup: RBAC_GROUP, name: teamIdentityOf(t) },
    ]),
  ];
  return {
    apiVersion: RBAC_API_VERSION,
    kind,
    metadata: {
      name,
      ...(namespace === undefined ? {} : { namespace }),
      labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [ACCESS_LABEL]: access, [TEMPLATE_LABEL]: template },
    },
    roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: clusterRoleNameOf(template) },
    subjects,
  };
}

function sortedByName(objects: KubeObject[]): KubeObject[] {
  return [...objects].sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""));
}
