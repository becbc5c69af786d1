import { type Static, Type } from "@sinclair/typebox";
import { nowTimestamp } from "../../api/object.js";
import { objectSchema } from "../../api/schema/meta.js";
import { defineKind, nameColumn } from "../define.js";
import { PROJECT_NAMESPACE_PREFIX } from "../project/project.js";

const SelfStatus = Type.Object(
  {
    user: Type.Optional(Type.String({ description: "The user name, when the caller is a user." })),
    team: Type.Optional(Type.String({ description: "The team name, when the caller is a team." })),
    subject: Type.Optional(Type.String({ description: "The subject, when the caller is neither." })),
    groups: Type.Optional(Type.Array(Type.String(), { description: "Groups of the caller." })),
    teams: Type.Optional(Type.Array(Type.String(), { description: "Teams the caller belongs to." })),
    accessKey: Type.Optional(Type.String({ description: "Name of the access key used." })),
    accessKeyType: Type.Optional(Type.String({ description: "Type of the access key used." })),
    projectNamespacePrefix: Type.Optional(Type.String({ description: "Prefix of project namespaces." })),
  },
  { description: "Who the caller is." },
);

/** The status of a Self (who the caller is), as its schema admits it. */
export type SelfStatus = Static<typeof SelfStatus>;

export const selfResource = defineKind({
  kind: "Self",
  plural: "selves",
  singular: "self",
  shortNames: [],
  namespaced: false,
  hasStatus: false,
  verbs: ["create"],
  description: "Creating a Self returns who the caller is.",
  schema: objectSchema(
    "Self",
    "Creating a Self returns who the caller is.",
    Type.Object({}, { description: "Empty.", additionalProperties: true }),
    SelfStatus,
  ),
  columns: [nameColumn()],
  async virtualCreate(body, ctx) {
    const u = ctx.user;
    return {
      apiVersion: body.apiVersion,
      kind: "Self",
      metadata: { name: body.metadata.name || "self", creationTimestamp: nowTimestamp() },
      spec: {},
      status: {
        ...(u.subjectKind === "User"
          ? { user: u.name }
          : u.subjectKind === "Team"
            ? { team: u.name }
            : { subject: u.name }),
        groups: u.groups,
        teams: u.teams,
        accessKey: u.credential?.name,
        accessKeyType: u.credential?.keyType,
        projectNamespacePrefix: PROJECT_NAMESPACE_PREFIX,
      },
    };
  },
});
