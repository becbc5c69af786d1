import type { KubeObject } from "../../api/types";
import { ClusterGrants } from "./ClusterGrants";
import { ClusterConnect } from "./ConnectInstructions";

/** Health of a connected cluster, and how to reach it with kubectl. */
export function ClusterPanel({ cluster }: { cluster: KubeObject }) {
  const s = cluster.status ?? {};
  const healthy = s.phase === "Initialized" && s.online === true;
  return (
    <>
      <h2>Health</h2>
      <dl className="facts">
        <div>
          <dt>Phase</dt>
          <dd>
            <span className={`badge ${healthy ? "ok" : s.phase === "Failed" ? "bad" : ""}`}>
              {String(s.phase || "Initializing")}
            </span>
          </dd>
        </div>
        <div>
          <dt>Reason</dt>
          <dd>{String(s.reason ?? "")}</dd>
        </div>
        <div>
          <dt>Message</dt>
          <dd>{String(s.message ?? "")}</dd>
        </div>
        <div>
          <dt>Reachable at last check</dt>
          <dd>{s.online === true ? "yes" : s.online === false ? "no" : "not checked yet"}</dd>
        </div>
      </dl>
      <ClusterConnect cluster={cluster} />
      <ClusterGrants cluster={cluster} />
    </>
  );
}
