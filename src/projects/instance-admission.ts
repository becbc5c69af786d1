import { errors, type FieldError, fieldError } from "../api/errors.js";
import { API_VERSION, GROUP, type KubeObject, type OwnerReference } from "../api/object.js";
import { projectOfNamespace } from "../kinds/project/project.js";
import type { ResourceType, Strategy } from "../registry/resource-type.js";

/** Reads a Project by name (undefined when it does not exist). */
export type ProjectLookup = (name: string) => Promise<KubeObject | undefined>;

const PROJECTS = { group: GROUP, resource: "projects" };

/**
 * What a Project means for the instances in its namespace `p-<project>`, added around the
 * VirtualClusterInstance strategy: the project must exist (and not be terminating) for an
 * instance to be created there; `spec.allowedClusters` limits `spec.clusterRef.cluster`;
 * every instance carries an ownerReference to its Project, so deleting the Project lets
 * the garbage collector delete its instances.
 */
export function withProjectAdmission(rt: ResourceType, lookup: ProjectLookup): ResourceType {
  const base = rt.strategy;
  const strategy: Strategy = {
    ...base,
    async prepareForCreate(obj, ctx) {
      await base.prepareForCreate?.(obj, ctx);
      const projectName = projectOfNamespace(obj.metadata.namespace);
      if (!projectName) return; // validate reports the namespace
      const project = await lookup(projectName);
      if (!project) {
        throw errors.notFound(PROJECTS, projectName);
      }
      if (project.metadata.deletionTimestamp) {
        throw errors.forbiddenMessage(
          `unable to create new content in namespace ${obj.metadata.namespace} because project ${projectName} is being deleted`,
        );
      }
      setProjectOwner(obj, project);
    },
    async prepareForUpdate(obj, old, ctx) {
      await base.prepareForUpdate?.(obj, old, ctx);
      // The owner reference is the server's: an update that drops it gets it back.
      const projectName = projectOfNamespace(obj.metadata.namespace);
      const project = projectName ? await lookup(projectName) : undefined;
      if (project) setProjectOwner(obj, project);
    },
    async validate(obj, ctx) {
      const errs = [...((await base.validate?.(obj, ctx)) ?? [])];
      errs.push(...(await allowedClusterErrors(obj, lookup)));
      return errs;
    },
    async validateUpdate(obj, old, ctx) {
      const errs = [
        ...((base.validateUpdate ? await base.validateUpdate(obj, old, ctx) : await base.validate?.(obj, ctx)) ?? []),
      ];
      // Only a change of cluster is checked, so narrowing allowedClusters does not freeze existing instances.
      if (clusterOf(obj) !== clusterOf(old)) errs.push(...(await allowedClusterErrors(obj, lookup)));
      return errs;
    },
  };
  return { ...rt, strategy };
}

function clusterOf(obj: KubeObject): string | undefined {
  return (obj.spec?.clusterRef as { cluster?: string } | undefined)?.cluster;
}

/** Whether a project lets its instances run on `cluster`: an absent or empty allowedClusters does not restrict; `*` allows all. */
export function projectAllowsCluster(project: KubeObject, cluster: string): boolean {
  const allowed = (project.spec?.allowedClusters as Array<{ name?: string }> | undefined) ?? [];
  return allowed.length === 0 || allowed.some((a) => a.name === "*" || a.name === cluster);
}

async function allowedClusterErrors(obj: KubeObject, lookup: ProjectLookup): Promise<FieldError[]> {
  const cluster = clusterOf(obj);
  const projectName = projectOfNamespace(obj.metadata.namespace);
  if (!cluster || !projectName) return [];
  const project = await lookup(projectName);
  if (!project || projectAllowsCluster(project, cluster)) return [];
  return [
    fieldError(
      "FieldValueForbidden",
      "spec.clusterRef.cluster",
      `cluster ${JSON.stringify(cluster)} is not in the allowedClusters of project ${JSON.stringify(projectName)}`,
    ),
  ];
}

function setProjectOwner(obj: KubeObject, project: KubeObject): void {
  const others = (obj.metadata.ownerReferences ?? []).filter(
    (r: OwnerReference) => !(r.kind === "Project" && r.apiVersion === API_VERSION),
  );
  obj.metadata.ownerReferences = [
    ...others,
    { apiVersion: API_VERSION, kind: "Project", name: project.metadata.name!, uid: project.metadata.uid! },
  ];
}
