import type { KubeObject } from "../../api/object.js";
import { type ClusterConnectionError, clusterCannotBeUsed } from "../../clusters/cluster-connection.js";
import type { EventRecorder } from "../../events/event-recorder.js";
import { keyOf } from "./queue-keys.js";

/** The Events about a space whose labelled Secrets cannot be filled, and can be again (docs/events.md). */
export const NOT_FILLED_REASON = "ProjectSecretsNotFilled";
export const FILLED_AGAIN_REASON = "ProjectSecretsFilled";

/**
 * Why a space could not be filled, as its readers (and the project secrets') may read it: the
 * cluster's own answer about the space's namespace (a right the platform lacks there), naming the
 * cluster by its name; when the cluster as a whole cannot be used (unreachable, its credentials
 * refused, its config secret missing) only that and the reason, as the space's status says it
 * (docs/spaces.md): the details are the Cluster's, whose readers may differ.
 */
export function fillFailureMessage(cluster: string, e: ClusterConnectionError): string {
  const answeredAboutNamespace = e.httpStatus !== undefined && e.httpStatus !== 401;
  return answeredAboutNamespace ? e.message : clusterCannotBeUsed(cluster, e.reason);
}

/**
 * Tells a space's readers once that its project's secrets cannot be filled into its namespace (a
 * Warning Event on the SpaceInstance, with why), and once that they are again (Normal): not at
 * every resync while it lasts. Remembered per space by the replica running the controllers: one
 * taking over reports a failure still there once more, which the recorder counts on the same Event.
 */
export class SpaceFillReports {
  /** The spaces whose failure was reported, with what it said. */
  private readonly failing = new Map<string, string>();

  constructor(private readonly events: EventRecorder | undefined) {}

  failed(space: KubeObject, namespace: string, why: string): void {
    const message = `the project's secrets cannot be filled into namespace ${JSON.stringify(namespace)}: ${why}`;
    if (this.failing.get(keyOf(space)) === message) return;
    this.failing.set(keyOf(space), message);
    this.events?.record(space, "Warning", NOT_FILLED_REASON, message);
  }

  filled(space: KubeObject, namespace: string): void {
    if (!this.failing.delete(keyOf(space))) return;
    const message = `the project's secrets are filled into namespace ${JSON.stringify(namespace)} again`;
    this.events?.record(space, "Normal", FILLED_AGAIN_REASON, message);
  }

  /** The space is gone or not Ready: nothing to report until it is filled (or fails) again. */
  forget(key: string): void {
    this.failing.delete(key);
  }
}
