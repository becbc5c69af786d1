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
 * instance is created with an ownerReference to its Project, so deleting the Project lets the
 * garbage collector delete its instances (`keepsProjectOwner` says when a write keeps it). A
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
    if (keepsProjectOwner(obj, attrs.oldObject, project)) setProjectOwner(obj, project);
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

/**
 * Whether a write gets (or keeps) the ownerReference to its project, as the server writes it:
 *  - a create: always (the project exists and is not being deleted, checked above);
 *  - an update while the project is being deleted: never. Deleting it with
 *    `propagationPolicy=Orphan`, the garbage collector removes the reference from each
 *    dependent before the project goes; putting it back would make the dependent the gone
 *    project's again, and the collector would then delete what the caller asked to keep.
 *    (Foreground and Background deletions do not rely on it: the collector deletes the
 *    dependents whose reference names the project's uid.)
 *  - an update of an instance that was owned by this project (the same uid): yes, so a client
 *    that sends its object without `ownerReferences` (a PUT from an old copy, a merge patch)
 *    does not detach it by mistake;
 *  - an update that adds a reference to the project by name: yes, in the server's form (this is
 *    how an instance orphaned by an earlier project of the same name is handed to the new one);
 *  - any other update (an orphan, or a dependent of an earlier project of the same name that
 *    the collector is about to delete): the references stay as the client sent them.
 */
function keepsProjectOwner(obj: KubeObject, old: KubeObject | undefined, project: KubeObject): boolean {
  if (!old) return true;
  if (project.metadata.deletionTimestamp) return false;
  const oldRefs = (old.metadata.ownerReferences ?? []).filter(isProjectRef);
  const wasOwned = oldRefs.some((r) => r.uid === project.metadata.uid);
  const addsProject = (obj.metadata.ownerReferences ?? []).some(
    (r) => isProjectRef(r) && r.name === project.metadata.name && !oldRefs.some((o) => o.uid === r.uid),
  );
  return wasOwned || addsProject;
}

function isProjectRef(r: OwnerReference): boolean {
  return r.kind === "Project" && r.apiVersion === API_VERSION;
}

function setProjectOwner(obj: KubeObject, project: KubeObject): void {
  const others = (obj.metadata.ownerReferences ?? []).filter((r) => !isProjectRef(r));
  obj.metadata.ownerReferences = [
    ...others,
    { apiVersion: API_VERSION, kind: "Project", name: project.metadata.name!, uid: project.metadata.uid! },
  ];
}
