import type { KubeObject } from "../../api/types";
import { reasonInWords } from "./reason-words";

/** The phases after which nothing changes without someone changing the instance. */
export const SETTLED_PHASES = new Set(["Ready", "Failed"]);

/**
 * A space's or virtual cluster's phase as a badge (green when Ready, red when Failed), and why it
 * is in it (PhaseReason). A deleted object's phase reads "Deleting" whatever its status says.
 */
export function InstancePhase({ instance }: { instance: KubeObject }) {
  const phase = instance.metadata.deletionTimestamp ? "Deleting" : String(instance.status?.phase || "not yet seen");
  const tone = phase === "Ready" ? "ok" : phase === "Failed" ? "bad" : "";
  return (
    <>
      <span className={`badge ${tone}`}>{phase}</span> <PhaseReason instance={instance} />
    </>
  );
}

/** Why an instance is in its phase: the reason in words (the reason itself beside it), then the status message. */
export function PhaseReason({ instance }: { instance: KubeObject }) {
  const status = instance.status ?? {};
  const reason = typeof status.reason === "string" ? status.reason : "";
  const message = typeof status.message === "string" ? status.message : "";
  return (
    <>
      {reason && (
        <>
          {reasonInWords(reason)} <span className="hint">({reason})</span>
        </>
      )}
      {reason && message && ": "}
      {message}
    </>
  );
}
