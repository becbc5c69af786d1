import { type KubeObject, statusOf } from "../../api/object.js";
import type { RawObject } from "../../clusters/object-client.js";
import { PROJECT_LABEL } from "./desired-space.js";

/**
 * The one rule of ownership of a namespace on a cluster, for spaces and virtual cluster
 * instances alike (docs/spaces.md, "Move"). A namespace is theirs when its UID is the one their
 * status recorded, or when it carries their labels and no other of their kind recorded its UID.
 * A move to another project keeps the status, but the namespace's labels still name the old
 * project until it is applied again: the recorded UID says it is theirs all the same. One moved
 * before any UID was recorded (stored by an older version, or moved while the cluster could not
 * be reached after its first deploy) knows it by the old project's labels instead: the move
 * wrote down that project's UID (status.movedFromProjectUID), not its name, which the readers of
 * the new project are not to learn; the project the labels name must be the one of that UID.
 * An earlier version wrote the name (status.movedFromProject), which is still read. A namespace
 * someone else made has none of these, and is never taken over; nor is one another instance of
 * the same name, made in the old project after the move, would find labelled as its own.
 */
export interface NamespaceClaim {
  /** The labels they put on their namespace and objects now. */
  ownerLabels: Record<string, string>;
  /** The namespace UID their status recorded. */
  namespaceUID?: string;
  /** Whether they were moved from `project` (a name) before a UID was recorded. */
  movedFrom(project: string): boolean;
  /** Whether another space or instance of their kind recorded this UID as its namespace's. */
  recordedByAnother(uid: string): boolean;
}

/** The status fields a claim reads: the same names on SpaceInstance and VirtualClusterInstance. */
export interface ClaimStatus {
  namespaceUID?: string;
  movedFromProjectUID?: string;
  /** Written by earlier versions instead of movedFromProjectUID. */
  movedFromProject?: string;
}

/**
 * The claim of a space or instance, judged against the others of its kind (`others`, e.g. an
 * informer's list); `projectUID` is the UID of the project of a name, undefined when there is
 * none (a project deleted since the move: the namespace is no longer known as theirs).
 */
export function namespaceClaim(
  owner: KubeObject,
  ownerLabels: Record<string, string>,
  others: () => Iterable<KubeObject>,
  projectUID: (project: string) => string | undefined,
): NamespaceClaim {
  const { namespaceUID, movedFromProjectUID, movedFromProject } = statusOf<ClaimStatus>(owner);
  return {
    ownerLabels,
    namespaceUID,
    movedFrom(project) {
      if (movedFromProjectUID !== undefined) return projectUID(project) === movedFromProjectUID;
      return movedFromProject !== undefined && movedFromProject === project;
    },
    recordedByAnother(uid) {
      for (const other of others()) {
        // By the object's uid, not its name: a newer copy of the same object (a cache's) is no
        // other; the copy a move left behind, and one of the same name made after it, are.
        if (other.metadata.uid === owner.metadata.uid) continue;
        if (statusOf<ClaimStatus>(other).namespaceUID === uid) return true;
      }
      return false;
    },
  };
}

/** Whether the claim holds the namespace (NamespaceClaim). */
export function holdsNamespace(namespace: RawObject, claim: NamespaceClaim): boolean {
  const uid = namespace.metadata?.uid;
  if (claim.namespaceUID !== undefined && claim.namespaceUID === uid) return true;
  if (uid !== undefined && claim.recordedByAnother(uid)) return false;
  const labels = namespace.metadata?.labels ?? {};
  const carries = (wanted: Record<string, string>) => Object.entries(wanted).every(([k, v]) => labels[k] === v);
  if (carries(claim.ownerLabels)) return true;
  const labelled = labels[PROJECT_LABEL];
  if (claim.namespaceUID !== undefined || labelled === undefined || !claim.movedFrom(labelled)) return false;
  return carries({ ...claim.ownerLabels, [PROJECT_LABEL]: labelled });
}
