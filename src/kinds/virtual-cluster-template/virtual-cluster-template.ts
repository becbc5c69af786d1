import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { type KubeObject, specOf } from "../../api/object.js";
import { AccessRulesSchema } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { ageColumn, defineKind, displayNameColumn, displayNameFields, nameColumn } from "../define.js";
import { validateAccessRules } from "../validation.js";
import { TemplateContentFields, validateTemplateContent } from "./template-content.js";
import { compareVersions, isVersion, LATEST, latestVersion } from "./versions.js";

const TemplateVersionSchema = Type.Object(
  {
    version: Type.String({ description: "The version: 1, 1.2 or v1.2.3 (whole numbers)." }),
    ...TemplateContentFields,
  },
  { description: "One version of the template: its parameters and the objects it deploys." },
);

const VirtualClusterTemplateSpec = Type.Object(
  {
    displayName: Type.Optional(Type.String({ description: "Name shown in the UI." })),
    description: Type.Optional(Type.String({ description: "What virtual clusters made from it are for." })),
    versions: Type.Array(TemplateVersionSchema, {
      description: "The template's versions; an instance pins one or follows the newest.",
    }),
    access: Type.Optional(AccessRulesSchema),
  },
  { description: "VirtualClusterTemplateSpec: how virtual clusters made from this template are deployed." },
);

export type VirtualClusterTemplateSpec = Static<typeof VirtualClusterTemplateSpec>;
export type TemplateVersion = VirtualClusterTemplateSpec["versions"][number];

const DESCRIPTION =
  "A VirtualClusterTemplate is a versioned, parameterised set of Kubernetes objects that deploys one virtual cluster (docs/virtual-clusters.md).";

export const virtualClusterTemplateResource = defineKind({
  kind: "VirtualClusterTemplate",
  plural: "virtualclustertemplates",
  singular: "virtualclustertemplate",
  shortNames: ["vct"],
  namespaced: false,
  hasStatus: false,
  description: DESCRIPTION,
  schema: objectSchema("VirtualClusterTemplate", DESCRIPTION, VirtualClusterTemplateSpec, undefined),
  strategy: {
    validate: (obj) => validateTemplateSpec(specOf<VirtualClusterTemplateSpec>(obj)),
  },
  console: { title: "Virtual cluster templates", fields: displayNameFields(), columns: ["Latest"] },
  columns: [
    nameColumn(),
    displayNameColumn(1),
    {
      name: "Latest",
      type: "string",
      description: "The newest version, which instances without a pinned version follow.",
      priority: 0,
      cell: (o: KubeObject) => latestVersion(specOf<VirtualClusterTemplateSpec>(o).versions ?? [])?.version ?? "",
    },
    {
      name: "Versions",
      type: "string",
      description: "Every version of the template.",
      priority: 1,
      cell: (o: KubeObject) => (specOf<VirtualClusterTemplateSpec>(o).versions ?? []).map((v) => v.version).join(","),
    },
    ageColumn(),
  ],
});

function validateTemplateSpec(spec: Partial<VirtualClusterTemplateSpec>): FieldError[] {
  const errs = validateAccessRules(spec.access, "spec.access");
  const versions = spec.versions ?? [];
  if (versions.length === 0) errs.push(fieldError("FieldValueRequired", "spec.versions", "at least one version"));
  versions.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    if (!isVersion(v.version)) {
      const detail = `whole numbers separated by dots, such as 1, 1.2 or v1.2.3${v.version === LATEST ? ` ("${LATEST}" means the newest version)` : ""}`;
      errs.push(fieldError("FieldValueInvalid", `${at}.version`, detail, v.version));
    } else if (versions.slice(0, i).some((o) => isVersion(o.version) && compareVersions(o.version, v.version) === 0)) {
      errs.push(fieldError("FieldValueDuplicate", `${at}.version`, "another version is the same", v.version));
    }
    errs.push(...validateTemplateContent(v, at));
  });
  return errs;
}
