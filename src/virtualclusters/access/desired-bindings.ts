import { type KubeObject, specOf } from "../../api/object.js";
import type { ClusterObject } from "../../clusters/cluster-objects.js";
import { DEFAULT_INSIDE_ROLE } from "../../kinds/virtual-cluster-instance/instance-access.js";
import type { VirtualClusterInstanceSpec } from "../../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import { teamIdentityOf } from "../../registry/impersonation-identity.js";

/**
 * What the platform keeps inside one virtual cluster: one ClusterRoleBinding per role, binding
 * the instance's owner (to cluster-admin) and the users and teams of every access rule that
 * grants `use` (to the rule's clusterRole, cluster-admin by default). One binding per role, not
 * per rule, because a binding's roleRef cannot change: a rule edited or removed only changes
 * who a binding names. Pure: the controller applies what this returns and prunes the rest.
 */

const RBAC_GROUP = "rbac.authorization.k8s.io";
export const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY_VALUE = "platform";
/** Marks the bindings this controller owns inside a virtual cluster (what it prunes). */
export const INSIDE_ACCESS_LABEL = "management.platform/virtual-cluster-access";
const BINDING_PREFIX = "platform:vcluster-access:";

export interface Subject {
  kind: "User" | "Group";
  apiGroup: string;
  name: string;
}

export function bindingNameOf(role: string): string {
  return `${BINDING_PREFIX}${role}`;
}

export function desiredBindings(instance: KubeObject): ClusterObject[] {
  const spec = specOf<VirtualClusterInstanceSpec>(instance);
  const byRole = new Map<string, Map<string, Subject>>();
  const add = (role: string, subjects: Subject[]) => {
    const into = byRole.get(role) ?? new Map<string, Subject>();
    for (const s of subjects) into.set(`${s.kind}/${s.name}`, s);
    byRole.set(role, into);
  };
  add(
    DEFAULT_INSIDE_ROLE,
    subjectsOf(spec.owner?.user ? [spec.owner.user] : [], spec.owner?.team ? [spec.owner.team] : []),
  );
  for (const rule of spec.access ?? []) {
    if (!rule.verbs.includes("use") && !rule.verbs.includes("*")) continue;
    // "*" is every platform user; inside the virtual cluster no identity says that (system:authenticated
    // would include the virtual cluster's own service accounts), so it binds nobody.
    add(
      rule.clusterRole || DEFAULT_INSIDE_ROLE,
      subjectsOf(
        (rule.users ?? []).filter((u) => u !== "*"),
        rule.teams ?? [],
      ),
    );
  }
  return [...byRole.entries()]
    .filter(([, subjects]) => subjects.size > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([role, subjects]) => ({
      apiVersion: RBAC_API_VERSION,
      kind: "ClusterRoleBinding",
      metadata: {
        name: bindingNameOf(role),
        labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [INSIDE_ACCESS_LABEL]: "true" },
      },
      roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: role },
      subjects: [...subjects.values()],
    }));
}

/**
 * The identities the gateway presents inside a virtual cluster (its client certificate's CN and
 * O, gateway/vcluster-upstreams.ts): a user's name with one group per team; a team key's user
 * is the team's identity.
 */
function subjectsOf(users: string[], teams: string[]): Subject[] {
  return [
    ...users.map((u): Subject => ({ kind: "User", apiGroup: RBAC_GROUP, name: u })),
    ...teams.flatMap((t): Subject[] => [
      { kind: "Group", apiGroup: RBAC_GROUP, name: teamIdentityOf(t) },
      { kind: "User", apiGroup: RBAC_GROUP, name: teamIdentityOf(t) },
    ]),
  ];
}
