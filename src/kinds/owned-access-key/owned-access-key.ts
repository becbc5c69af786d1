import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import { ScopeSchema } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { generateAccessKey, hashAccessKey } from "../../crypto/access-keys.js";
import { SYSTEM_USER, type UserInfo } from "../../registry/request-context.js";
import type { Prepared, ResourceType, Strategy, TableColumn } from "../../registry/resource-type.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn, specString } from "../define.js";
import type { SecretDataCipher } from "../shared-secret/shared-secret.js";
import { validateScope } from "../validation.js";
import { encryptConnectorData, keepServerIdentityData } from "./connector-data.js";
import { type AccessKeyIdentity, IdentitySchema } from "./identity-schema.js";

/** Stored keys carry only this marker plus the SHA-256 of the key; reads never show it. */
export const KEY_HASH_PREFIX = "sha256:";

/** The hex SHA-256 a stored access key object keeps for its key, if it has one. */
export function storedKeyHash(key: KubeObject): string | undefined {
  const stored = key.spec?.key;
  return typeof stored === "string" && stored.startsWith(KEY_HASH_PREFIX)
    ? stored.slice(KEY_HASH_PREFIX.length)
    : undefined;
}
export const MIN_GIVEN_KEY_LENGTH = 32;
const ACCESS_KEY_TYPES = ["User", "Login", "Other"] as const;

const OwnedAccessKeySpec = Type.Object(
  {
    displayName: Type.Optional(Type.String({ description: "Name shown in the UI." })),
    description: Type.Optional(Type.String({ description: "Free text." })),
    user: Type.Optional(Type.String({ description: "The user the key belongs to." })),
    team: Type.Optional(Type.String({ description: "The team the key belongs to." })),
    subject: Type.Optional(Type.String({ description: "A generic subject, instead of user or team." })),
    groups: Type.Optional(Type.Array(Type.String(), { description: "Extra groups applied when the key is used." })),
    key: Type.Optional(
      Type.String({
        description:
          "The secret bearer token. Generated when omitted (or give at least 32 characters); returned only by the create response.",
      }),
    ),
    disabled: Type.Optional(Type.Boolean({ description: "A disabled key exists but does not authenticate." })),
    ttl: Type.Optional(Type.Integer({ description: "Time to live in seconds; 0 or absent means no expiry." })),
    ttlAfterLastActivity: Type.Optional(
      Type.Boolean({ description: "Count the lifetime from the last activity instead of creation." }),
    ),
    scope: Type.Optional(ScopeSchema),
    type: Type.Optional(Type.String({ description: "User (default), Login or Other." })),
    identity: Type.Optional(IdentitySchema),
    oidcProvider: Type.Optional(
      Type.Object(
        {
          clientId: Type.Optional(Type.String()),
          nonce: Type.Optional(Type.String()),
          redirectUri: Type.Optional(Type.String()),
          scopes: Type.Optional(Type.String()),
        },
        { description: "Present when the token is a refresh token." },
      ),
    ),
    parent: Type.Optional(Type.String({ description: "Deprecated." })),
    oidcLogin: Type.Optional(
      Type.Object(
        {
          idToken: Type.Optional(Type.String()),
          accessToken: Type.Optional(Type.String()),
          refreshToken: Type.Optional(Type.String()),
          lastRefresh: Type.Optional(Type.String({ format: "date-time" })),
        },
        { description: "Deprecated; use identity." },
      ),
    ),
  },
  { description: "OwnedAccessKeySpec describes an access key." },
);

const OwnedAccessKeyStatus = Type.Object(
  { lastActivity: Type.Optional(Type.String({ format: "date-time", description: "Last time the key was used." })) },
  { description: "OwnedAccessKeyStatus is maintained by the server." },
);

/** The spec and status of an OwnedAccessKey, as its schema admits them. */
export type OwnedAccessKeySpec = Static<typeof OwnedAccessKeySpec>;
export type OwnedAccessKeyStatus = Static<typeof OwnedAccessKeyStatus>;
export type { AccessKeyIdentity };

/**
 * The subject a key will have: the one the spec names, or else the caller itself (a key
 * created without a subject is the caller's own).
 */
export function accessKeySubject(
  spec: Record<string, unknown>,
  caller: UserInfo,
): { user?: string; team?: string; subject?: string } {
  const named = (f: string) => (typeof spec[f] === "string" && spec[f] !== "" ? (spec[f] as string) : undefined);
  if (spec.user || spec.team || spec.subject)
    return { user: named("user"), team: named("team"), subject: named("subject") };
  if (caller.subjectKind === "User") return { user: caller.name };
  if (caller.subjectKind === "Team") return { team: caller.name };
  return { subject: caller.name };
}

function subjectOf(obj: KubeObject): string {
  const s = obj.spec ?? {};
  if (s.user) return `user:${s.user}`;
  if (s.team) return `team:${s.team}`;
  return String(s.subject ?? "");
}

/** Expiry time of a key (ISO), or "" when it never expires. */
export function keyExpiry(obj: KubeObject): string {
  const ttl = Number(obj.spec?.ttl ?? 0);
  if (!ttl) return "";
  const from =
    obj.spec?.ttlAfterLastActivity && obj.status?.lastActivity
      ? String(obj.status.lastActivity)
      : String(obj.metadata.creationTimestamp ?? "");
  const start = Date.parse(from);
  return Number.isNaN(start) ? "" : `${new Date(start + ttl * 1000).toISOString().slice(0, 19)}Z`;
}

function validateKey(obj: KubeObject): FieldError[] {
  const s = obj.spec ?? {};
  const errs: FieldError[] = [];
  const subjects = ["user", "team", "subject"].filter((f) => s[f] !== undefined && s[f] !== "");
  if (subjects.length !== 1) {
    errs.push(
      fieldError(
        "FieldValueInvalid",
        "spec",
        "exactly one of spec.user, spec.team or spec.subject must be set",
        subjects,
      ),
    );
  }
  if (s.type !== undefined && !(ACCESS_KEY_TYPES as readonly unknown[]).includes(s.type)) {
    errs.push(fieldError("FieldValueNotSupported", "spec.type", `supported values: "User", "Login", "Other"`, s.type));
  }
  if (typeof s.ttl === "number" && s.ttl < 0)
    errs.push(fieldError("FieldValueInvalid", "spec.ttl", "must be 0 or more", s.ttl));
  errs.push(...validateScope(s.scope, "spec.scope"));
  return errs;
}

/** Hashes a key the client gave (checking its length) or generates one; returns the plaintext. */
function takeKey(obj: KubeObject, given: unknown): { plaintext?: string; error?: FieldError } {
  const spec = obj.spec!;
  if (given === undefined || given === "") {
    const plaintext = generateAccessKey();
    spec.key = KEY_HASH_PREFIX + hashAccessKey(plaintext);
    return { plaintext };
  }
  if (typeof given !== "string" || given.length < MIN_GIVEN_KEY_LENGTH) {
    delete spec.key;
    return {
      error: fieldError(
        "FieldValueInvalid",
        "spec.key",
        `must be at least ${MIN_GIVEN_KEY_LENGTH} characters`,
        "<value omitted>",
      ),
    };
  }
  spec.key = KEY_HASH_PREFIX + hashAccessKey(given);
  return { plaintext: given };
}

/** `cipher` encrypts `spec.identity.connectorData` (an SSO login's refresh token) at rest. */
export function ownedAccessKeyResource(cipher?: SecretDataCipher): ResourceType {
  return defineKind({
    kind: "OwnedAccessKey",
    plural: "ownedaccesskeys",
    singular: "ownedaccesskey",
    shortNames: ["oak", "accesskey"],
    namespaced: false,
    hasStatus: false,
    description: "An OwnedAccessKey authenticates API and CLI requests as its user, team or subject.",
    schema: objectSchema(
      "OwnedAccessKey",
      "An OwnedAccessKey authenticates API and CLI requests as its user, team or subject.",
      OwnedAccessKeySpec,
      OwnedAccessKeyStatus,
    ),
    fieldSelectors: {
      "spec.user": (o) => specString(o, "user"),
      "spec.team": (o) => specString(o, "team"),
      "spec.subject": (o) => specString(o, "subject"),
    },
    strategy: ownedAccessKeyStrategy(cipher),
    // The key itself (revealed once by the create response) and an SSO login's refresh token.
    secretFields: ["spec.key", "spec.identity.connectorData"],
    console: {
      title: "Access keys",
      fields: displayNameFields(),
      columns: ["Subject", "Type", "Disabled", "Expires", "Last Activity"],
    },
    columns: ownedAccessKeyColumns(),
  });
}

/**
 * Keys are hashed before they are stored and shown only in the create response; the server
 * alone writes lastActivity and an SSO login's identity data, which is encrypted at rest.
 */
function ownedAccessKeyStrategy(cipher: SecretDataCipher | undefined): Strategy {
  return {
    prepareForCreate(obj, ctx): Prepared {
      obj.spec ??= {};
      const s = obj.spec;
      if (!s.user && !s.team && !s.subject) Object.assign(s, accessKeySubject(s, ctx.user));
      s.type ??= "User";
      delete obj.status; // lastActivity is the server's to write
      keepServerIdentityData(obj, undefined, ctx.user === SYSTEM_USER);
      const { plaintext, error } = takeKey(obj, s.key);
      return {
        fieldErrors: error ? [error] : [],
        // The plaintext is shown once, in the create response.
        reveal: plaintext ? (created) => ({ ...created, spec: { ...created.spec, key: plaintext } }) : undefined,
      };
    },
    prepareForUpdate(obj, old, ctx): Prepared {
      obj.spec ??= {};
      keepServerIdentityData(obj, old, ctx.user === SYSTEM_USER);
      const given = obj.spec.key;
      const oldHash = old.spec?.key;
      let error: FieldError | undefined;
      if (given === undefined || given === "" || given === oldHash) {
        obj.spec.key = oldHash;
      } else {
        error = takeKey(obj, given).error;
      }
      // lastActivity is the server's to write.
      if (old.status === undefined) delete obj.status;
      else obj.status = old.status;
      return { fieldErrors: error ? [error] : [] };
    },
    validate: (obj) => validateKey(obj),
    toStorage: cipher ? (obj) => encryptConnectorData(obj, cipher) : undefined,
    present(obj) {
      const spec = obj.spec;
      if (!spec) return obj;
      const connectorData = specOf<OwnedAccessKeySpec>(obj).identity?.connectorData;
      if (!spec.key && !connectorData && !spec.oidcLogin) return obj;
      // The deprecated oidcLogin holds tokens: never shown, like the key and connectorData.
      const { key: _hidden, oidcLogin: _tokens, ...rest } = spec;
      const identity = rest.identity as Record<string, unknown> | undefined;
      if (identity?.connectorData !== undefined) {
        const { connectorData: _cd, ...visible } = identity;
        rest.identity = visible;
      }
      return { ...obj, spec: rest };
    },
  };
}

/** What `kubectl get ownedaccesskeys` shows: never the key, only whose it is and how long it lasts. */
function ownedAccessKeyColumns(): TableColumn[] {
  return [
    nameColumn(),
    {
      name: "Subject",
      type: "string",
      description: "User, team or subject of the key.",
      priority: 0,
      cell: subjectOf,
    },
    {
      name: "Type",
      type: "string",
      description: "User, Login or Other.",
      priority: 0,
      cell: (o) => specString(o, "type") || "User",
    },
    {
      name: "Disabled",
      type: "boolean",
      description: "Whether the key is disabled.",
      priority: 0,
      cell: (o) => o.spec?.disabled === true,
    },
    {
      name: "Expires",
      type: "string",
      description: "When the key expires.",
      priority: 0,
      cell: (o) => keyExpiry(o) || "<never>",
    },
    {
      name: "Last Activity",
      type: "string",
      description: "Last time the key was used.",
      priority: 0,
      cell: (o) => statusOf<OwnedAccessKeyStatus>(o).lastActivity ?? "<never>",
    },
    displayNameColumn(1),
    ageColumn(),
  ];
}
