import { errors, type FieldError, fieldError } from "../api/errors.js";
import { API_VERSION, GROUP, type KubeObject, type OwnerReference, specOf } from "../api/object.js";
import { type ProjectSpec, projectOfNamespace } from "../kinds/project/project.js";
import type { VirtualClusterInstanceSpec } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../registry/admission.js";
import { platformPlural } from "./resource-match.js";

/** Reads a Project by name (undefined when it does not exist). */
export type ProjectLookup = (name: string) => Promise<KubeObject | undefined>;

const PROJECTS = { group: GROUP, resource: "projects" };

/**
 * What a Project means for the VirtualClusterInstances and SpaceInstances in its namespace `p-<project>`:
 * the project must exist (and not be terminating) for an instance to be created there;
 * `spec.allowedClusters` limits `spec.clusterRef.cluster` (on create, and on an update that
 * changes the cluster, so narrowing allowedClusters does not freeze existing instances); every
 * instance carries an ownerReference to its Project (the server's: an update that drops it gets
 * it back), so deleting the Project lets the garbage collector delete its instances. A
 * ProjectSecret in `p-<project>` needs its project and is owned by it the same way.
 */
export class ProjectInstancesAdmission implements AdmissionPlugin {
  readonly name = "ProjectInstances";

  constructor(private readonly projects: ProjectLookup) {}

  async admit(attrs: AdmissionAttributes): Promise<FieldError[]> {
    // This group's kinds that declare it (ResourceType.projectInstance: VirtualClusterInstances,
    // SpaceInstances; projectNamespaced: ProjectSecrets, which run on no cluster).
    const { projectInstance, projectNamespaced } = attrs.resourceType;
    if (platformPlural(attrs) === undefined || !(projectInstance || projectNamespaced) || attrs.subresource !== "")
      return [];
    const obj = attrs.object;
    const projectName = projectOfNamespace(obj.metadata.namespace);
    if (!projectName) return []; // the kind's validation reports the namespace
    const project = await this.projects(projectName);
    if (attrs.operation === "CREATE") {
      if (!project) throw errors.notFound(PROJECTS, projectName);
      if (project.metadata.deletionTimestamp) {
        throw errors.forbiddenMessage(
          `unable to create new content in namespace ${obj.metadata.namespace} because project ${projectName} is being deleted`,
        );
      }
    }
    if (!project) return [];
    setProjectOwner(obj, project);
    if (!projectInstance) return [];
    const old = attrs.oldObject;
    if (old && clusterOf(obj) === clusterOf(old)) return [];
    return allowedClusterErrors(obj, project, projectName);
  }
}

function clusterOf(obj: KubeObject): string | undefined {
  return specOf<VirtualClusterInstanceSpec>(obj).clusterRef?.cluster;
}

/** Whether a project lets its instances run on `cluster`: an absent or empty allowedClusters does not restrict; `*` allows all. */
function projectAllowsCluster(project: KubeObject, cluster: string): boolean {
  const allowed = specOf<ProjectSpec>(project).allowedClusters ?? [];
  return allowed.length === 0 || allowed.some((a) => a.name === "*" || a.name === cluster);
}

function allowedClusterErrors(obj: KubeObject, project: KubeObject, projectName: string): FieldError[] {
  const cluster = clusterOf(obj);
  if (!cluster || projectAllowsCluster(project, cluster)) return [];
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
