import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { type KubeObject, setOwnProperty, specOf } from "../../api/object.js";
import { AccessRulesSchema, ConditionsSchema, ownedObjectFields } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import type { UserInfo } from "../../registry/request-context.js";
import type { ResourceType, Strategy, TableColumn } from "../../registry/resource-type.js";
import {
  ageColumn,
  defineKind,
  descriptionColumn,
  displayNameColumn,
  displayNameFields,
  nameColumn,
} from "../define.js";
import { validateAccessRules } from "../validation.js";

const SharedSecretSpec = Type.Object(
  {
    ...ownedObjectFields("Describes the shared secret."),
    data: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          "The secret data. Keys consist of alphanumerics, '-', '_' or '.'; values are base64 (RFC 4648 section 4).",
      }),
    ),
    access: Type.Optional(AccessRulesSchema),
  },
  { description: "SharedSecretSpec holds the secret data and who may use it." },
);

const SharedSecretStatus = Type.Object(
  { conditions: Type.Optional(ConditionsSchema) },
  { description: "SharedSecretStatus is the observed state of a shared secret." },
);

/** The spec of a SharedSecret, as its schema admits it. */
export type SharedSecretSpec = Static<typeof SharedSecretSpec>;

const DATA_KEY = /^[-._a-zA-Z0-9]+$/;
/** RFC 4648 §4 base64 with padding (what Kubernetes Secrets accept). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Field errors of a secret `data` map: its keys' shape and base64 values (the value itself never shown). */
export function validateSecretData(data: unknown, path: string): FieldError[] {
  if (!data || typeof data !== "object") return [];
  const errs: FieldError[] = [];
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (!DATA_KEY.test(key) || key.length > 253) {
      errs.push(
        fieldError(
          "FieldValueInvalid",
          `${path}[${key}]`,
          "a valid data key must consist of alphanumeric characters, '-', '_' or '.' (regex used for validation is '[-._a-zA-Z0-9]+')",
          key,
        ),
      );
    }
    if (typeof value !== "string" || !BASE64.test(value)) {
      errs.push(
        fieldError(
          "FieldValueInvalid",
          `${path}[${key}]`,
          "must be base64 encoded (RFC 4648 section 4)",
          "<value omitted>",
        ),
      );
    }
  }
  return errs;
}

/** Encrypts and decrypts the data map at rest. Absent: data is stored as given (tests of the store alone). */
export interface SecretDataCipher {
  encrypt(plaintext: string): string;
  decrypt(stored: string): string;
}

/** `spec.data` with each value mapped (encrypted for storage, decrypted from it). */
export function mapData(obj: KubeObject, fn: (v: string) => string): KubeObject {
  const data = specOf<SharedSecretSpec>(obj).data;
  if (!data) return obj;
  const mapped: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) setOwnProperty(mapped, k, fn(v)); // `__proto__` is a valid key
  return { ...obj, spec: { ...obj.spec, data: mapped } };
}

/** The kinds whose `spec.data` is secret: shown only to who may read it. */
export type SecretResource = "sharedsecrets" | "projectsecrets";

/** Who may read a secret's data (the authorizer, in the server): others read the object without it. */
export interface SecretDataReaders {
  mayReadData(user: UserInfo, obj: KubeObject, resource: SecretResource): boolean;
}

/** The object as `user` may see it: without `spec.data` unless they may read it. */
export function presentSecret(
  readers: SecretDataReaders,
  resource: SecretResource,
  obj: KubeObject,
  user: UserInfo,
): KubeObject {
  if (obj.spec?.data === undefined || readers.mayReadData(user, obj, resource)) return obj;
  const { data: _hidden, ...spec } = obj.spec;
  return { ...obj, spec };
}

/**
 * How a kind whose `spec.data` is secret stores and shows it: encrypted at rest with `cipher`
 * (stored as given without one), and shown only to who may read it.
 */
export function secretDataStrategy(
  cipher: SecretDataCipher | undefined,
  readers: SecretDataReaders,
  resource: SecretResource,
): Pick<Strategy, "toStorage" | "fromStorage" | "present"> {
  return {
    toStorage: cipher ? (obj) => mapData(obj, (v) => cipher.encrypt(v)) : undefined,
    fromStorage: cipher ? (obj) => mapData(obj, (v) => cipher.decrypt(v)) : undefined,
    present: (obj, ctx) => presentSecret(readers, resource, obj, ctx.user),
  };
}

/**
 * The table of a kind whose `spec.data` is secret: its names, how many keys the data has (never
 * what they hold), the kind's `own` columns, its description and age.
 */
export function secretColumns(own: TableColumn[]): TableColumn[] {
  const keys: TableColumn = {
    name: "Keys",
    type: "integer",
    description: "Number of data keys.",
    priority: 0,
    cell: (o) => Object.keys(specOf<SharedSecretSpec>(o).data ?? {}).length,
  };
  return [nameColumn(), displayNameColumn(), keys, ...own, descriptionColumn(), ageColumn()];
}

/**
 * `platform-management-view` reads SharedSecrets without their data (docs/permissions.md):
 * every get, list and watch event drops `spec.data` for a caller who sees the object only
 * through that role.
 */
export function sharedSecretResource(cipher: SecretDataCipher | undefined, readers: SecretDataReaders): ResourceType {
  return defineKind({
    kind: "SharedSecret",
    plural: "sharedsecrets",
    singular: "sharedsecret",
    shortNames: ["gs", "globalsecret"],
    namespaced: true,
    hasStatus: false,
    description: "A SharedSecret (Global Secret) holds sensitive data shared across users, teams and clusters.",
    schema: objectSchema(
      "SharedSecret",
      "A SharedSecret (Global Secret) holds sensitive data shared across users, teams and clusters.",
      SharedSecretSpec,
      SharedSecretStatus,
    ),
    strategy: {
      validate: (obj) => [
        ...validateSecretData(obj.spec?.data, "spec.data"),
        ...validateAccessRules(obj.spec?.access, "spec.access"),
      ],
      ...secretDataStrategy(cipher, readers, "sharedsecrets"),
    },
    secretFields: ["spec.data"],
    console: { title: "Shared secrets", defaultNamespace: "platform", fields: displayNameFields(), columns: ["Keys"] },
    columns: secretColumns([]),
  });
}
