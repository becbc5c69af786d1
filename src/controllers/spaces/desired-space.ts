import { type KubeObject, specOf } from "../../api/object.js";
import type { ClusterObject } from "../../clusters/cluster-objects.js";
import { projectOfNamespace } from "../../kinds/project/project.js";
import { type SpaceInstanceSpec, spaceNamespaceOf } from "../../kinds/space-instance/space-instance.js";
import { type BUILT_IN_REFERENCES, fillPlaceholders } from "../../kinds/space-template/render.js";
import type { SpaceBody } from "../../kinds/space-template/space-body.js";
import type { SpaceTemplateSpec } from "../../kinds/space-template/space-template.js";
import { resolveParameters } from "../../kinds/template-parameters/parameters.js";
import { UnrenderableTemplate, variablesOf } from "../../kinds/template-parameters/substitution.js";
import { teamIdentityOf } from "../../registry/impersonation-identity.js";

/**
 * What one space is on its cluster: its Namespace (the template's labels and annotations), the
 * owner's RoleBinding to `admin`, one RoleBinding per access rule with a clusterRole, and the
 * template's objects, placeholders filled in. Every object carries the platform's label and
 * two naming the space, which is how the controller finds what it made and how it knows a
 * namespace is its own. Pure: the controller applies what this returns.
 */

export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY_VALUE = "platform";
export const PROJECT_LABEL = "management.platform/project";
export const SPACE_LABEL = "management.platform/space";
const RBAC_GROUP = "rbac.authorization.k8s.io";

export interface DesiredSpace {
  namespace: string;
  /** The labels every object of this space carries. */
  ownerLabels: Record<string, string>;
  /** The Namespace first, then the RoleBindings, then the template's objects. */
  objects: ClusterObject[];
}

export type SpaceProblem = { reason: string; message: string };

export function spaceLabels(space: KubeObject): Record<string, string> {
  return {
    [MANAGED_BY_LABEL]: MANAGED_BY_VALUE,
    [PROJECT_LABEL]: projectOfNamespace(space.metadata.namespace) ?? "",
    [SPACE_LABEL]: space.metadata.name ?? "",
  };
}

/**
 * The label selector of this space's objects inside its namespace, once the namespace is known to
 * be the space's (its labels, or its UID): the platform's label and the space's name, not its
 * project. A space moved to another project keeps its objects, labelled with the old project
 * until it is applied again; they are its own all the same, to prune or to release. No other
 * space's objects are in its namespace.
 */
export function spaceObjectsSelector(space: KubeObject): string {
  return `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE},${SPACE_LABEL}=${space.metadata.name ?? ""}`;
}

/** The body the space's template (its templateRef's, or inline) gives, or why there is none. */
export function spaceBody(space: KubeObject, template: KubeObject | undefined): SpaceBody | SpaceProblem {
  const spec = specOf<SpaceInstanceSpec>(space);
  const namespace = spaceNamespaceOf(space);
  const builtIns: Record<(typeof BUILT_IN_REFERENCES)[number], string> = {
    "space.name": space.metadata.name ?? "",
    "space.namespace": namespace,
    "space.project": projectOfNamespace(space.metadata.namespace) ?? "",
  };
  if (!spec.templateRef?.name) return render(spec.template ?? {}, builtIns);
  if (!template || template.metadata.deletionTimestamp) {
    return { reason: "TemplateNotFound", message: `SpaceTemplate "${spec.templateRef.name}" does not exist` };
  }
  const tspec = specOf<SpaceTemplateSpec>(template);
  const { values, errors } = resolveParameters(tspec.parameters ?? [], spec.parameters, "spec.parameters");
  if (errors.length > 0) {
    const detail = errors.map((e) => `${e.field}: ${e.detail}`).join("; ");
    return {
      reason: "ParametersInvalid",
      message: `the parameters do not fit SpaceTemplate "${spec.templateRef.name}": ${detail}`,
    };
  }
  return render(tspec.template ?? {}, Object.fromEntries(variablesOf(values, builtIns)));
}

/** The body filled in, or a problem for a template stored before its references were checked as now. */
function render(body: SpaceBody, variables: Record<string, string | number | boolean>): SpaceBody | SpaceProblem {
  try {
    return fillPlaceholders(body, variables);
  } catch (err) {
    if (!(err instanceof UnrenderableTemplate)) throw err;
    return { reason: "TemplateInvalid", message: `the space's template does not render: ${err.message}` };
  }
}

export function desiredSpace(space: KubeObject, body: SpaceBody): DesiredSpace {
  const spec = specOf<SpaceInstanceSpec>(space);
  const namespace = spaceNamespaceOf(space);
  const ownerLabels = spaceLabels(space);
  const objects: ClusterObject[] = [
    {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: namespace,
        labels: { ...body.labels, ...ownerLabels },
        ...(body.annotations && Object.keys(body.annotations).length > 0 ? { annotations: body.annotations } : {}),
      },
    },
  ];
  const binding = (name: string, role: string, subjects: unknown[]): ClusterObject => ({
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: "RoleBinding",
    metadata: { name, namespace, labels: ownerLabels },
    roleRef: { apiGroup: RBAC_GROUP, kind: "ClusterRole", name: role },
    subjects,
  });
  const owner = subjectsOf(spec.owner?.user ? [spec.owner.user] : [], spec.owner?.team ? [spec.owner.team] : []);
  if (owner.length > 0) objects.push(binding("platform:space-owner", "admin", owner));
  (spec.access ?? []).forEach((rule, i) => {
    const subjects = subjectsOf(
      (rule.users ?? []).filter((u) => u !== "*"),
      rule.teams ?? [],
    );
    if (rule.clusterRole && subjects.length > 0)
      objects.push(binding(`platform:space-access-${i}`, rule.clusterRole, subjects));
  });
  for (const o of body.objects ?? []) {
    const metadata = o.metadata as ClusterObject["metadata"];
    objects.push({
      ...o,
      metadata: { ...metadata, namespace, labels: { ...metadata.labels, ...ownerLabels } },
    } as ClusterObject);
  }
  return { namespace, ownerLabels, objects };
}

/** The identities the gateway impersonates: a user's name; a team's group (its members) and user (its keys). */
function subjectsOf(users: string[], teams: string[]): unknown[] {
  return [
    ...users.map((u) => ({ kind: "User", apiGroup: RBAC_GROUP, name: u })),
    ...teams.flatMap((t) => [
      { kind: "Group", apiGroup: RBAC_GROUP, name: teamIdentityOf(t) },
      { kind: "User", apiGroup: RBAC_GROUP, name: teamIdentityOf(t) },
    ]),
  ];
}
