import type { KubeObject } from "../api/types";
import type { KindInfo } from "../kinds";

/** Where the console lands after deleting an object from its page, and what it says there. */
export interface AfterDelete {
  path: string;
  message: string;
}

/**
 * A virtual cluster instance the platform deployed is not gone when the DELETE answers: its
 * finalizer holds it until what was deployed is removed from its cluster
 * (docs/virtual-clusters.md, "Lifecycle"). So the console says the delete is under way, and goes
 * to the instance's project, whose list shows its phase (Deleting) until it is gone.
 */
export function afterDelete(kind: KindInfo, deleted: KubeObject, answer: unknown): AfterDelete {
  const name = deleted.metadata.name ?? "";
  if (kind.plural !== "virtualclusterinstances")
    return { path: `/k/${kind.plural}`, message: `${kind.kind} ${name} deleted.` };
  const namespace = deleted.metadata.namespace ?? "";
  const path = namespace.startsWith("p-")
    ? `/k/projects/${encodeURIComponent(namespace.slice(2))}`
    : `/k/${kind.plural}`;
  const still = (answer as KubeObject | undefined)?.metadata;
  const waits = !!still?.deletionTimestamp && (still.finalizers?.length ?? 0) > 0;
  if (!waits) return { path, message: `Virtual cluster ${name} deleted.` };
  const cluster = deleted.spec?.clusterRef?.cluster;
  return {
    path,
    message: `Deleting virtual cluster ${name}: the platform first removes what it deployed on ${cluster ? `cluster ${cluster}` : "its cluster"}.`,
  };
}
