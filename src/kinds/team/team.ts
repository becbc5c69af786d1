import { type Static, Type } from "@sinclair/typebox";
import { specOf } from "../../api/object.js";
import { AccessRulesSchema, ClusterRolesSchema } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn } from "../define.js";
import { validateAccessRules, validateClusterRoles } from "../validation.js";

const TeamSpec = Type.Object(
  {
    displayName: Type.Optional(Type.String({ description: "Name shown in the UI." })),
    description: Type.Optional(Type.String({ description: "Free text describing the team." })),
    username: Type.Optional(Type.String({ description: "A username for the team." })),
    users: Type.Optional(Type.Array(Type.String(), { description: "Names of the users who are members." })),
    groups: Type.Optional(
      Type.Array(Type.String(), {
        description: "Identity-provider groups whose users belong to the team automatically.",
      }),
    ),
    clusterRoles: Type.Optional(ClusterRolesSchema),
    access: Type.Optional(AccessRulesSchema),
  },
  { description: "TeamSpec is the desired state of a team." },
);

/** The spec of a Team, as its schema admits it. */
export type TeamSpec = Static<typeof TeamSpec>;

export const teamResource = defineKind({
  kind: "Team",
  plural: "teams",
  singular: "team",
  shortNames: ["tm"],
  namespaced: false,
  hasStatus: false,
  description: "A Team is a group of users; its cluster roles and access rules apply to every member.",
  schema: objectSchema(
    "Team",
    "A Team is a group of users; its cluster roles and access rules apply to every member.",
    TeamSpec,
    Type.Object({}, { description: "Observed state of the team.", additionalProperties: true }),
  ),
  strategy: {
    validate: (obj) => [
      ...validateClusterRoles(obj.spec?.clusterRoles, "spec.clusterRoles"),
      ...validateAccessRules(obj.spec?.access, "spec.access"),
    ],
  },
  console: {
    title: "Teams",
    fields: [
      ...displayNameFields(),
      { path: "spec.users", label: "Members (user names)", type: "list" },
      { path: "spec.groups", label: "Identity-provider groups", type: "list" },
      { path: "spec.clusterRoles", label: "Cluster roles", type: "roles" },
    ],
    columns: ["Users"],
  },
  columns: [
    nameColumn(),
    displayNameColumn(),
    {
      name: "Users",
      type: "string",
      description: "Member users.",
      priority: 0,
      cell: (o) => (specOf<TeamSpec>(o).users ?? []).join(","),
    },
    {
      name: "Groups",
      type: "string",
      description: "Identity-provider groups.",
      priority: 1,
      cell: (o) => (specOf<TeamSpec>(o).groups ?? []).join(","),
    },
    ageColumn(),
  ],
});
