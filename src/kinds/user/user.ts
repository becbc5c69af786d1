import { type Static, Type } from "@sinclair/typebox";
import { specOf, statusOf } from "../../api/object.js";
import { ClusterRolesSchema } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { SYSTEM_USER } from "../../registry/request-context.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn, specString } from "../define.js";
import { validateClusterRoles, validateEmail } from "../validation.js";

const UserSpec = Type.Object(
  {
    displayName: Type.Optional(Type.String({ description: "Name shown in the UI." })),
    description: Type.Optional(Type.String({ description: "Free text describing the user." })),
    username: Type.Optional(Type.String({ description: "The login name." })),
    email: Type.Optional(Type.String({ description: "The user's e-mail address." })),
    subject: Type.Optional(Type.String({ description: "The subject of the user in the identity provider." })),
    groups: Type.Optional(Type.Array(Type.String(), { description: "Identity-provider groups of the user." })),
    clusterRoles: Type.Optional(ClusterRolesSchema),
    disabled: Type.Optional(Type.Boolean({ description: "A disabled user cannot authenticate." })),
  },
  { description: "UserSpec is the desired state of a user." },
);

const UserStatus = Type.Object(
  { teams: Type.Optional(Type.Array(Type.String(), { description: "Teams the user belongs to (computed)." })) },
  { description: "UserStatus is computed by the server." },
);

/** The spec and status of a User, as its schema admits them. */
export type UserSpec = Static<typeof UserSpec>;
export type UserStatus = Static<typeof UserStatus>;

export const userResource = defineKind({
  kind: "User",
  plural: "users",
  singular: "user",
  shortNames: ["usr"],
  namespaced: false,
  hasStatus: false,
  description: "A User is an identity that can access the platform.",
  schema: objectSchema("User", "A User is an identity that can access the platform.", UserSpec, UserStatus),
  strategy: {
    // status.teams is computed by the server; clients cannot write it.
    prepareForCreate(obj, ctx) {
      if (ctx.user !== SYSTEM_USER) delete obj.status;
    },
    prepareForUpdate(obj, old, ctx) {
      if (ctx.user === SYSTEM_USER) return;
      if (old.status === undefined) delete obj.status;
      else obj.status = old.status;
    },
    validate: (obj) => [
      ...validateClusterRoles(obj.spec?.clusterRoles, "spec.clusterRoles"),
      ...validateEmail(obj.spec?.email, "spec.email"),
    ],
  },
  console: {
    title: "Users",
    fields: [
      ...displayNameFields(),
      { path: "spec.email", label: "E-mail", type: "text" },
      { path: "spec.username", label: "Username", type: "text" },
      { path: "spec.groups", label: "Identity-provider groups", type: "list" },
      { path: "spec.clusterRoles", label: "Cluster roles", type: "roles" },
      { path: "spec.disabled", label: "Disabled", type: "bool" },
    ],
    columns: ["Email", "Teams"],
  },
  columns: [
    nameColumn(),
    displayNameColumn(),
    { name: "Email", type: "string", description: "E-mail address.", priority: 0, cell: (o) => specString(o, "email") },
    {
      name: "Teams",
      type: "string",
      description: "Teams the user belongs to.",
      priority: 0,
      cell: (o) => (statusOf<UserStatus>(o).teams ?? []).join(","),
    },
    {
      name: "Cluster Roles",
      type: "string",
      description: "Cluster roles of the user.",
      priority: 1,
      cell: (o) => (specOf<UserSpec>(o).clusterRoles ?? []).map((r) => r.name).join(","),
    },
    {
      name: "Disabled",
      type: "boolean",
      description: "Whether the user is disabled.",
      priority: 1,
      cell: (o) => o.spec?.disabled === true,
    },
    ageColumn(),
  ],
});
