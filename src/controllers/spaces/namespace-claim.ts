import { type KubeObject, statusOf } from "../../api/object.js";
import type { RawObject } from "../../clusters/object-client.js";
import { projectOfNamespace } from "../../kinds/project/project.js";
import { PROJECT_LABEL } from "./desired-space.js";

/**
 * The one rule of ownership of a namespace on a cluster, for spaces and virtual cluster
 * instances alike (docs/spaces.md, "Move"). A namespace is theirs when its UID is the one their
 * status recorded, or when it carries their labels and no other of their kind recorded its UID.
 * A move to another project keeps the status, but the namespace's labels still name the old
 * project until it is applied again: the recorded UID says it is theirs all the same. One moved
 * before any UID was recorded (stored by an older version, or moved while the cluster could not
 * be reached after its first deploy) knows it by the old project's labels instead, which the move
 * wrote down (status.movedFromProject). A namespace someone else made has none of these, and is
 * never taken over; nor is one another instance of the same name, made in the old project after
 * the move, would find labelled as its own.
 */
export interface NamespaceClaim {
  /** The labels they put on their namespace and objects now. */
  ownerLabels: Record<string, string>;
  /** The namespace UID their status recorded. */
  namespaceUID?: string;
  /** The project they were moved from before a UID was recorded. */
  movedFromProject?: string;
  /** Whether another space or instance of their kind recorded this UID as its namespace's. */
  recordedByAnother(uid: string): boolean;
}

/** The status fields a claim reads: the same names on SpaceInstance and VirtualClusterInstance. */
export interface ClaimStatus {
  namespaceUID?: string;
  movedFromProject?: string;
}

/** The claim of a space or instance, judged against the others of its kind (`others`, e.g. an informer's list). */
export function namespaceClaim(
  owner: KubeObject,
  ownerLabels: Record<string, string>,
  others: () => Iterable<KubeObject>,
): NamespaceClaim {
  const { namespaceUID, movedFromProject } = statusOf<ClaimStatus>(owner);
  return {
    ownerLabels,
    namespaceUID,
    movedFromProject,
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
  if (claim.namespaceUID !== undefined || claim.movedFromProject === undefined) return false;
  return carries({ ...claim.ownerLabels, [PROJECT_LABEL]: claim.movedFromProject });
}

/**
 * The project a move records on the moved space or instance (status.movedFromProject): the one it
 * leaves, when its status has no namespace UID yet (a move before it keeps the first); undefined
 * when the UID says which namespace is its own.
 */
export function movedFromProject(status: ClaimStatus, leftNamespace: string | undefined): string | undefined {
  if (status.namespaceUID !== undefined) return undefined;
  return status.movedFromProject ?? projectOfNamespace(leftNamespace);
}
