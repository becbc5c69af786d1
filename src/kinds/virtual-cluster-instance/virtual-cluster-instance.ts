import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { type KubeObject, specOf, statusOf } from "../../api/object.js";
import { OwnerSchema } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import type { ResourceType } from "../../registry/resource-type.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn, statusField } from "../define.js";
import { isServerCaller, keepPlatformStatusFields } from "../platform-status.js";
import { PROJECT_NAMESPACE_PREFIX } from "../project/project.js";
import { ParameterValuesSchema } from "../template-parameters/parameters.js";
import { validateAccessRules } from "../validation.js";
import { TemplateContentFields } from "../virtual-cluster-template/template-content.js";
import { InstanceAccessRuleSchema, insideRoleErrors } from "./instance-access.js";
import { type InstanceCaIssuer, instanceCaOnCreate } from "./instance-ca.js";
import {
  addCleanupFinalizer,
  defaultPlacement,
  deployedChangeErrors,
  validateTemplateFields,
} from "./template-fields.js";
import {
  PLATFORM_STATUS_FIELDS,
  type VirtualClusterInstanceStatus,
  VirtualClusterInstanceStatusSchema,
} from "./virtual-cluster-instance-status.js";

const VirtualClusterInstanceSpec = Type.Object(
  {
    displayName: Type.Optional(Type.String({ description: "Name shown in the UI." })),
    description: Type.Optional(Type.String({ description: "Describes the instance." })),
    owner: Type.Optional(OwnerSchema),
    clusterRef: Type.Optional(
      Type.Object(
        {
          cluster: Type.Optional(Type.String({ description: "The connected cluster the virtual cluster runs on." })),
          namespace: Type.Optional(Type.String({ description: "Its namespace on that cluster." })),
          virtualCluster: Type.Optional(Type.String({ description: "Its name on that cluster." })),
        },
        { description: "Where the virtual cluster runs." },
      ),
    ),
    external: Type.Optional(Type.Boolean({ description: "True when the virtual cluster was imported, not created." })),
    templateRef: Type.Optional(
      Type.Object(
        {
          name: Type.String({ description: "The VirtualClusterTemplate." }),
          version: Type.Optional(
            Type.String({ description: "A version of it; absent or `latest`: follow the newest version." }),
          ),
        },
        { description: "The template the virtual cluster is deployed from." },
      ),
    ),
    parameters: Type.Optional(ParameterValuesSchema),
    template: Type.Optional(
      Type.Object(TemplateContentFields, {
        description:
          "Instead of templateRef: the template itself, inline (needs `administer` on the cluster: it decides what is deployed there).",
      }),
    ),
    access: Type.Optional(
      Type.Array(InstanceAccessRuleSchema, {
        description: "Access rules for users and teams, and the role each gives inside the virtual cluster.",
      }),
    ),
    sleepAfter: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Seconds without a request through the gateway after which the platform scales the virtual cluster to zero (Sleeping); absent or 0: never.",
      }),
    ),
    deleteAfter: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Seconds without a request through the gateway after which the platform deletes the instance; absent or 0: never.",
      }),
    ),
  },
  { description: "VirtualClusterInstanceSpec is the desired state of a virtual cluster instance." },
);

/** The spec and status of a VirtualClusterInstance, as its schema admits them (the status: virtual-cluster-instance-status.ts). */
export type VirtualClusterInstanceSpec = Static<typeof VirtualClusterInstanceSpec>;
export type { VirtualClusterInstanceStatus } from "./virtual-cluster-instance-status.js";

const DESCRIPTION = "A VirtualClusterInstance is a virtual cluster that belongs to a project (namespace p-<project>).";

/**
 * The kind; with `cas`, every instance deployed from a template gets a certificate authority made
 * by the platform when it is created (instance-ca.ts). Without (a store of its own in a test, the
 * bootstrap before workers fork), none is made.
 */
export function virtualClusterInstanceKind(cas?: InstanceCaIssuer): ResourceType {
  return defineKind({
    kind: "VirtualClusterInstance",
    plural: "virtualclusterinstances",
    singular: "virtualclusterinstance",
    shortNames: ["vci", "vcluster"],
    namespaced: true,
    // In p-<project>, on one of the project's clusters, managed by its members.
    projectInstance: true,
    hasStatus: true,
    description: DESCRIPTION,
    schema: objectSchema(
      "VirtualClusterInstance",
      DESCRIPTION,
      VirtualClusterInstanceSpec,
      VirtualClusterInstanceStatusSchema,
    ),
    fieldSelectors: {
      "spec.clusterRef.cluster": (o) => specOf<VirtualClusterInstanceSpec>(o).clusterRef?.cluster,
    },
    strategy: {
      prepareForCreate(obj) {
        defaultPlacement(obj);
        addCleanupFinalizer(obj);
        return undefined;
      },
      // Making a CA costs a key pair: never for a body its schema refuses (schema-refusal.ts).
      issueForCreate: cas ? (obj) => instanceCaOnCreate(obj, cas) : undefined,
      prepareForUpdate(obj) {
        defaultPlacement(obj);
        return undefined;
      },
      prepareForStatusUpdate: keepPlatformStatusFields(PLATFORM_STATUS_FIELDS),
      validate: validateInstance,
      validateUpdate(obj, old, ctx) {
        const errs = validateInstance(obj);
        errs.push(...deployedChangeErrors(obj, old));
        errs.push(...caReferenceErrors(obj, old, isServerCaller(ctx)));
        return errs;
      },
    },
    console: {
      title: "Virtual clusters",
      fields: [
        ...displayNameFields(),
        { path: "spec.clusterRef.cluster", label: "Cluster", type: "text" },
        { path: "spec.clusterRef.namespace", label: "Namespace on the cluster", type: "text" },
      ],
      columns: ["Cluster", "Phase"],
    },
    columns: [
      nameColumn(),
      {
        name: "Cluster",
        type: "string",
        description: "Connected cluster.",
        priority: 0,
        cell: (o) => specOf<VirtualClusterInstanceSpec>(o).clusterRef?.cluster ?? "",
      },
      {
        name: "Phase",
        type: "string",
        description: "Phase of the instance.",
        priority: 0,
        cell: (o) => statusField(o, "phase") ?? "",
      },
      {
        name: "Template",
        type: "string",
        description: "The template it is deployed from, and the version when pinned.",
        priority: 1,
        cell: templateCell,
      },
      displayNameColumn(1),
      {
        name: "External",
        type: "boolean",
        description: "Imported rather than created.",
        priority: 1,
        cell: (o) => o.spec?.external === true,
      },
      ageColumn(),
    ],
  });
}

/** The kind without a CA issuer (see virtualClusterInstanceKind). */
export const virtualClusterInstanceResource = virtualClusterInstanceKind();

function validateInstance(obj: KubeObject): FieldError[] {
  const errs = validateAccessRules(obj.spec?.access, "spec.access");
  errs.push(...insideRoleErrors(specOf<VirtualClusterInstanceSpec>(obj).access));
  const ns = obj.metadata.namespace ?? "";
  if (!ns.startsWith(PROJECT_NAMESPACE_PREFIX) || ns.length === PROJECT_NAMESPACE_PREFIX.length) {
    errs.push(fieldError("FieldValueInvalid", "metadata.namespace", "must be a project namespace p-<project>", ns));
  }
  errs.push(...validateTemplateFields(obj));
  return errs;
}

/**
 * The status fields that say which kept CA signs the instance's kube configs (ca-store.ts
 * caIdOf): pointing them at another virtual cluster's CA would give its holder certificates for
 * that virtual cluster. `caID` never changes; `serviceUID` only by the platform itself (a
 * controller that finds the Service), never through a client's status write.
 */
function caReferenceErrors(obj: KubeObject, old: KubeObject, byServer: boolean): FieldError[] {
  const now = statusOf<VirtualClusterInstanceStatus>(obj);
  const before = statusOf<VirtualClusterInstanceStatus>(old);
  const errs: FieldError[] = [];
  if (now.caID !== before.caID) {
    errs.push(
      fieldError(
        "FieldValueForbidden",
        "status.caID",
        "set by the platform when the instance is created; it never changes",
      ),
    );
  }
  if (now.serviceUID !== before.serviceUID && !byServer) {
    errs.push(
      fieldError(
        "FieldValueForbidden",
        "status.serviceUID",
        "set by the platform from the virtual cluster's Service on its cluster",
      ),
    );
  }
  return errs;
}

function templateCell(o: KubeObject): string {
  const spec = specOf<VirtualClusterInstanceSpec>(o);
  if (spec.template) return "(inline)";
  const ref = spec.templateRef;
  if (!ref) return "";
  return ref.version ? `${ref.name}@${ref.version}` : ref.name;
}
