import { type Static, Type } from "@sinclair/typebox";

/** Spec pieces several kinds share. */

export const OwnerSchema = Type.Object(
  {
    user: Type.Optional(Type.String({ description: "Name of the owning user." })),
    team: Type.Optional(Type.String({ description: "Name of the owning team." })),
  },
  { description: "The owner of the object: a user or a team, not both." },
);

/**
 * The fields that open the spec of a kind whose objects have an owner: the name the UI shows,
 * free text about the object (`describes`, the field's own description) and the owner.
 */
export function ownedObjectFields(describes: string, displayName = "Name shown in the UI.") {
  return {
    displayName: Type.Optional(Type.String({ description: displayName })),
    description: Type.Optional(Type.String({ description: describes })),
    owner: Type.Optional(OwnerSchema),
  };
}

const ClusterRoleRefSchema = Type.Object(
  {
    name: Type.String({
      description: "Name of a built-in cluster role: platform-management-admin or platform-management-view.",
    }),
  },
  { description: "A cluster role granted to the subject." },
);

export const ClusterRolesSchema = Type.Array(ClusterRoleRefSchema, {
  description: "Cluster roles granted to this subject (and, for a team, to all its members).",
});

export const AccessRuleSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ description: "Optional name of the rule." })),
    verbs: Type.Array(Type.String(), {
      description:
        "Verbs the rule grants: get, list, watch, update, patch, delete, use, bind, administer, or * for all.",
    }),
    subresources: Type.Optional(
      Type.Array(Type.String(), { description: "Subresources the rule covers (* for all)." }),
    ),
    users: Type.Optional(Type.Array(Type.String(), { description: "Users granted the verbs (* for everyone)." })),
    teams: Type.Optional(Type.Array(Type.String(), { description: "Teams granted the verbs." })),
  },
  { description: "An access rule granting verbs on this object to users and teams." },
);

export const AccessRulesSchema = Type.Array(AccessRuleSchema, {
  description: "Access rules for users and teams on this object.",
});

export const ACCESS_RULE_VERBS = [
  "get",
  "list",
  "watch",
  "update",
  "patch",
  "delete",
  "use",
  "bind",
  "administer",
  "*",
] as const;

const ScopeRuleSchema = Type.Object(
  {
    verbs: Type.Optional(Type.Array(Type.String(), { description: "Matching verbs; empty means every verb." })),
    resources: Type.Optional(
      Type.Array(
        Type.Object({
          group: Type.Optional(Type.String({ description: "API group; empty is the core group." })),
          resources: Type.Optional(
            Type.Array(Type.String(), {
              description: "Resources: name, name/sub, *, name/*, */sub. Empty means all of the group.",
            }),
          ),
        }),
        { description: "Resources matched; an empty list means all kinds in all groups." },
      ),
    ),
    resourceNames: Type.Optional(Type.Array(Type.String(), { description: "Instance names matched." })),
    namespaces: Type.Optional(
      Type.Array(Type.String(), { description: "Namespaces matched; empty string matches non-namespaced resources." }),
    ),
    nonResourceURLs: Type.Optional(
      Type.Array(Type.String(), { description: "URL paths; a trailing * is allowed as the whole final step." }),
    ),
    requestTargets: Type.Optional(Type.Array(Type.String(), { description: "Allowed request targets." })),
    cluster: Type.Optional(Type.String({ description: "Cluster matched; non-cluster requests are refused." })),
    virtualClusters: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.Optional(Type.String({ description: "Virtual cluster name; empty means all." })),
          namespace: Type.Optional(Type.String({ description: "Namespace; empty means all." })),
        }),
      ),
    ),
  },
  { description: "Deprecated scope rule; use projects, spaces and virtualClusters." },
);

export const ScopeSchema = Type.Object(
  {
    allowPlatformCli: Type.Optional(
      Type.Boolean({ description: "Allow the read-only management requests the platform CLI needs." }),
    ),
    projects: Type.Optional(
      Type.Array(Type.Object({ project: Type.String({ description: "Project name, or * for all." }) }), {
        description: "Projects the key may act in.",
      }),
    ),
    spaces: Type.Optional(
      Type.Array(
        Type.Object({
          project: Type.String({ description: "Project name." }),
          space: Type.String({ description: "Space name, or * for all." }),
        }),
        { description: "Spaces the key may act in." },
      ),
    ),
    virtualClusters: Type.Optional(
      Type.Array(
        Type.Object({
          project: Type.String({ description: "Project name." }),
          virtualCluster: Type.String({ description: "Virtual cluster name, or * for all." }),
        }),
        { description: "Virtual clusters the key may act on." },
      ),
    ),
    rules: Type.Optional(
      Type.Array(ScopeRuleSchema, { description: "Deprecated; use projects, spaces, virtualClusters." }),
    ),
  },
  { description: "Narrows what a key or token may do." },
);

const ConditionSchema = Type.Object({
  type: Type.String({ description: "Type of the condition." }),
  status: Type.String({ description: "True, False or Unknown." }),
  severity: Type.Optional(Type.String()),
  lastTransitionTime: Type.Optional(Type.String({ format: "date-time" })),
  reason: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

export const ConditionsSchema = Type.Array(ConditionSchema, { description: "Conditions the object is in." });

/** The shared pieces as their schemas admit them. */
export type Owner = Static<typeof OwnerSchema>;
export type ClusterRoleRef = Static<typeof ClusterRoleRefSchema>;
export type AccessRule = Static<typeof AccessRuleSchema>;
export type Scope = Static<typeof ScopeSchema>;
export type ScopeRule = Static<typeof ScopeRuleSchema>;
