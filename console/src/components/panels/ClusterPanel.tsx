import type { KubeObject } from "../../api/types";

/** Health of a connected cluster, and how to reach it with kubectl. */
export function ClusterPanel({ cluster }: { cluster: KubeObject }) {
  const s = cluster.status ?? {};
  const healthy = s.phase === "Initialized" && s.online === true;
  const origin = window.location.origin;
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
      <h2>Connect with kubectl</h2>
      <p>Sign in with the platform CLI, then list what you may use on this cluster:</p>
      <pre className="code">
        {`platform login ${origin} --access-key "$KEY"\nkubectl --kubeconfig admin.kubeconfig get cluster ${cluster.metadata.name} -o yaml`}
      </pre>
    </>
  );
}
