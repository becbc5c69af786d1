import { type Static, Type } from "@sinclair/typebox";

/** The SSO login data of an access key (`spec.identity`): its own file, so that connector-data.ts reads its type without importing the kind. */
export const IdentitySchema = Type.Object(
  {
    userId: Type.Optional(Type.String({ description: "Subject of the user." })),
    username: Type.Optional(Type.String({ description: "The username." })),
    preferredUsername: Type.Optional(Type.String({ description: "Preferred username or display name." })),
    email: Type.Optional(Type.String({ description: "The user's e-mail." })),
    emailVerified: Type.Optional(Type.Boolean({ description: "Whether the e-mail was verified." })),
    groups: Type.Optional(Type.Array(Type.String(), { description: "Groups from the identity provider." })),
    connector: Type.Optional(Type.String({ description: "Connector the key was created from." })),
    connectorData: Type.Optional(Type.String({ description: "Connector data; never shown by the API." })),
    identityRefresh: Type.Optional(Type.String({ format: "date-time", description: "Last refresh of the identity." })),
  },
  { description: "SSO login data, when available." },
);

/** The SSO login data of a key (`spec.identity`). */
export type AccessKeyIdentity = Static<typeof IdentitySchema>;
