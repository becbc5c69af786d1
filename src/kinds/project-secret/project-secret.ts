import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { specOf } from "../../api/object.js";
import { AccessRulesSchema, ConditionsSchema, ownedObjectFields } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import type { ResourceType } from "../../registry/resource-type.js";
import { defineKind, displayNameFields } from "../define.js";
import { PROJECT_NAMESPACE_PREFIX } from "../project/project.js";
import {
  type SecretDataCipher,
  type SecretDataReaders,
  secretColumns,
  secretDataStrategy,
  validateSecretData,
} from "../shared-secret/shared-secret.js";
import { validateAccessRules } from "../validation.js";

/** The namespace a source SharedSecret is looked up in when `source.sharedSecret.namespace` is empty. */
export const DEFAULT_SOURCE_NAMESPACE = "platform";

/** The label that asks for a Secret inside a space to be filled with a project secret's data. */
export const PROJECT_SECRET_LABEL = "management.platform/project-secret-name";

const ProjectSecretSource = Type.Object(
  {
    sharedSecret: Type.Object(
      {
        name: Type.String({ description: "Name of the SharedSecret." }),
        namespace: Type.Optional(Type.String({ description: `Its namespace (default ${DEFAULT_SOURCE_NAMESPACE}).` })),
      },
      { description: "The SharedSecret the data is copied from." },
    ),
    keys: Type.Optional(
      Type.Array(Type.String(), { description: "The keys copied (absent: every key of the shared secret)." }),
    ),
  },
  {
    description:
      "Where the data comes from: the platform keeps spec.data equal to these keys of the shared secret, while whoever set the source may read its data.",
  },
);

const ProjectSecretSpec = Type.Object(
  {
    ...ownedObjectFields("Describes the project secret."),
    data: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          "The secret data. Keys consist of alphanumerics, '-', '_' or '.'; values are base64 (RFC 4648 section 4). Kept by the platform when spec.source is set.",
      }),
    ),
    source: Type.Optional(ProjectSecretSource),
    access: Type.Optional(AccessRulesSchema),
  },
  { description: "ProjectSecretSpec holds a project's secret data, where it comes from and who may use it." },
);

const ProjectSecretStatus = Type.Object(
  {
    conditions: Type.Optional(ConditionsSchema),
    spaces: Type.Optional(
      Type.Array(
        Type.Object({
          space: Type.String({ description: "The SpaceInstance." }),
          cluster: Type.String({ description: "Its cluster." }),
          namespace: Type.String({ description: "Its namespace on that cluster." }),
          secrets: Type.Array(Type.String(), { description: "The labelled Secrets filled there." }),
          synced: Type.Boolean({ description: "Whether every labelled Secret there holds the data." }),
          reason: Type.Optional(Type.String()),
          message: Type.Optional(Type.String()),
        }),
        { description: "The spaces whose labelled Secrets the platform fills, and how that went." },
      ),
    ),
  },
  { description: "ProjectSecretStatus is the observed state of a project secret." },
);

/** The spec and status of a ProjectSecret, as their schemas admit them. */
export type ProjectSecretSpec = Static<typeof ProjectSecretSpec>;
export type ProjectSecretStatus = Static<typeof ProjectSecretStatus>;
export type ProjectSecretSource = Static<typeof ProjectSecretSource>;

/** The shared secret a source names, its namespace defaulted. */
export function sourceSecretOf(spec: ProjectSecretSpec): { namespace: string; name: string } | undefined {
  const ref = spec.source?.sharedSecret;
  if (!ref?.name) return undefined;
  return { namespace: ref.namespace || DEFAULT_SOURCE_NAMESPACE, name: ref.name };
}

function validateNamespace(ns: string): FieldError[] {
  if (ns.startsWith(PROJECT_NAMESPACE_PREFIX) && ns.length > PROJECT_NAMESPACE_PREFIX.length) return [];
  return [fieldError("FieldValueInvalid", "metadata.namespace", "must be a project namespace p-<project>", ns)];
}

function validateSource(spec: ProjectSecretSpec): FieldError[] {
  if (!spec.source) return [];
  const errs: FieldError[] = [];
  if (!spec.source.sharedSecret?.name) {
    errs.push(fieldError("FieldValueRequired", "spec.source.sharedSecret.name", "names the shared secret"));
  }
  for (const [i, key] of (spec.source.keys ?? []).entries()) {
    if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
      errs.push(fieldError("FieldValueInvalid", `spec.source.keys[${i}]`, "is not a valid data key", key));
    }
  }
  return errs;
}

/**
 * A ProjectSecret (docs/project-secrets.md): secret data of a project, in `p-<project>`,
 * encrypted at rest with the SharedSecrets' cipher and shown only to who may read it, as a
 * SharedSecret is. With `spec.source` the platform keeps its data equal to a SharedSecret's
 * (controllers/project-secrets/) and refuses writes of it (admission/project-secret-source.ts).
 */
export function projectSecretResource(cipher: SecretDataCipher | undefined, readers: SecretDataReaders): ResourceType {
  return defineKind({
    kind: "ProjectSecret",
    plural: "projectsecrets",
    singular: "projectsecret",
    shortNames: ["ps"],
    namespaced: true,
    hasStatus: true,
    description: "A ProjectSecret holds secret data of a project (namespace p-<project>), filled into its spaces.",
    schema: objectSchema(
      "ProjectSecret",
      "A ProjectSecret holds secret data of a project (namespace p-<project>), filled into its spaces.",
      ProjectSecretSpec,
      ProjectSecretStatus,
    ),
    strategy: {
      validate: (obj) => [
        ...validateNamespace(obj.metadata.namespace ?? ""),
        ...validateSecretData(obj.spec?.data, "spec.data"),
        ...validateSource(specOf<ProjectSecretSpec>(obj)),
        ...validateAccessRules(obj.spec?.access, "spec.access"),
      ],
      ...secretDataStrategy(cipher, readers, "projectsecrets"),
    },
    projectNamespaced: true,
    secretFields: ["spec.data"],
    console: {
      title: "Project secrets",
      fields: [
        ...displayNameFields(),
        {
          path: "spec.source.sharedSecret.name",
          label: "Source: shared secret",
          type: "text",
          help: "optional: the platform keeps the values equal to it",
        },
        {
          path: "spec.source.sharedSecret.namespace",
          label: "Source namespace",
          type: "text",
          help: "default: platform",
        },
        { path: "spec.source.keys", label: "Source keys", type: "list", help: "empty: every key" },
      ],
      columns: ["Keys", "Source"],
    },
    columns: secretColumns([
      {
        name: "Source",
        type: "string",
        description: "The shared secret the data is kept equal to.",
        priority: 0,
        cell: (o) => {
          const src = sourceSecretOf(specOf<ProjectSecretSpec>(o));
          return src ? `${src.namespace}/${src.name}` : "";
        },
      },
    ]),
  });
}
