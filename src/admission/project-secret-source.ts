import { isDeepStrictEqual } from "node:util";
import { errors, type FieldError, fieldError } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import type { PlatformAuthorizer } from "../authz/authorizer.js";
import { type ProjectSecretSpec, sourceSecretOf } from "../kinds/project-secret/project-secret.js";
import { SOURCE_SET_BY_ANNOTATION, setterOf } from "../kinds/project-secret/source-setter.js";
import { type AdmissionAttributes, type AdmissionPlugin, isServerWrite } from "../registry/admission.js";
import type { ObjectReader } from "./references.js";
import { platformResource, writesTo } from "./resource-match.js";

const PROJECT_SECRETS = platformResource("projectsecrets");

/**
 * A ProjectSecret's `spec.source` steers a SharedSecret's data into the project, so setting or
 * changing it needs the right to read that data (403 otherwise, as for a missing shared secret,
 * so its existence is not revealed). Who set it is recorded in the annotation
 * SOURCE_SET_BY_ANNOTATION, which only this plugin writes: the sync controller copies data only
 * while that setter may still read it. With a source, `spec.data` belongs to the platform: a
 * body without data keeps the stored data, one with other data is refused (422).
 */
export class ProjectSecretSourceAdmission implements AdmissionPlugin {
  readonly name = "ProjectSecretSource";

  constructor(
    private readonly authz: Pick<PlatformAuthorizer, "canReadSecretData">,
    private readonly read: ObjectReader,
  ) {}

  admit(attrs: AdmissionAttributes): FieldError[] {
    if (!writesTo(attrs, PROJECT_SECRETS) || attrs.subresource !== "" || isServerWrite(attrs)) return [];
    const { object: obj, oldObject: old } = attrs;
    const spec = specOf<ProjectSecretSpec>(obj);
    recordSetter(obj, old, attrs.user.subjectKind, attrs.user.name);
    if (!spec.source) return [];
    const stored = specOf<ProjectSecretSpec>(old).data;
    if (spec.data === undefined) {
      if (stored !== undefined) obj.spec = { ...obj.spec, data: stored };
      return [];
    }
    // An absent map and an empty one say the same: no data.
    if (isDeepStrictEqual(spec.data, stored ?? {})) return [];
    return [
      fieldError(
        "FieldValueForbidden",
        "spec.data",
        "is kept equal to spec.source by the platform; remove spec.source to write the data",
      ),
    ];
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (!writesTo(attrs, PROJECT_SECRETS) || attrs.operation === "DELETE" || attrs.subresource !== "") return;
    if (isServerWrite(attrs)) return;
    const { object: obj, oldObject: old } = attrs;
    const source = sourceSecretOf(specOf<ProjectSecretSpec>(obj));
    if (!source || !sourceChanged(obj, old)) return;
    const shared = (await this.read("sharedsecrets", source.namespace, source.name)) ?? {
      apiVersion: `${GROUP}/v1`,
      kind: "SharedSecret",
      metadata: { name: source.name, namespace: source.namespace },
    };
    if (this.authz.canReadSecretData(attrs.user, shared, "sharedsecrets")) return;
    throw errors.forbidden(
      { group: GROUP, resource: "projectsecrets" },
      obj.metadata.name ?? "",
      `User "${attrs.user.name}" cannot read the data of shared secret "${source.namespace}/${source.name}", which spec.source names`,
    );
  }
}

/** Whether the write sets a source or names other shared-secret keys than the stored one. */
function sourceChanged(obj: KubeObject, old: KubeObject | undefined): boolean {
  const now = specOf<ProjectSecretSpec>(obj);
  const before = specOf<ProjectSecretSpec>(old);
  return (
    !isDeepStrictEqual(sourceSecretOf(now), sourceSecretOf(before)) ||
    !isDeepStrictEqual(now.source?.keys, before.source?.keys)
  );
}

/**
 * The setter annotation follows the source, whatever the body says: the caller when the source
 * is set or changed, the stored setter while it stays, none without a source.
 */
function recordSetter(obj: KubeObject, old: KubeObject | undefined, kind: string, name: string): void {
  const annotations = { ...(obj.metadata.annotations ?? {}) };
  delete annotations[SOURCE_SET_BY_ANNOTATION];
  if (specOf<ProjectSecretSpec>(obj).source) {
    const setter = sourceChanged(obj, old) ? `${kind}:${name}` : setterOf(old);
    if (setter) annotations[SOURCE_SET_BY_ANNOTATION] = setter;
  }
  if (Object.keys(annotations).length > 0) obj.metadata.annotations = annotations;
  else delete obj.metadata.annotations;
}
