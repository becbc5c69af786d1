import type { KubeObject } from "../../api/types";
import { Link } from "../../router";

interface Grant {
  kind: string;
  name: string;
  namespace?: string;
  clusterRoleTemplate: string;
  clusterAccess?: string;
  applied: boolean;
  reason?: string;
  message?: string;
}

/**
 * Access inside the cluster: the ClusterRoles and bindings the platform keeps on it for its
 * ClusterRoleTemplates and ClusterAccesses (docs/cluster-access.md), failed ones first, so a
 * binding that could not be written is seen at a glance.
 */
export function ClusterGrants({ cluster }: { cluster: KubeObject }) {
  const grants = [...((cluster.status?.grants as Grant[] | undefined) ?? [])].sort(
    (a, b) => Number(a.applied) - Number(b.applied),
  );
  const failed = grants.filter((g) => !g.applied).length;
  return (
    <>
      <h2>Access inside the cluster</h2>
      {grants.length === 0 ? (
        <p className="empty">
          No ClusterRoleTemplate or ClusterAccess reaches this cluster: users may reach it through the platform, and
          have no rights inside it unless someone bound them there.
        </p>
      ) : (
        <>
          <p>
            {grants.length - failed} of {grants.length} applied{" "}
            {failed > 0 && <span className="badge bad">{failed} failed</span>}
          </p>
          <div className="table-wrap">
            <table className="stack">
              <thead>
                <tr>
                  <th scope="col">Object on the cluster</th>
                  <th scope="col">Template</th>
                  <th scope="col">Granted by</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {grants.map((g) => (
                  <tr key={`${g.kind}/${g.namespace ?? ""}/${g.name}`}>
                    <td data-label="Object on the cluster" className="mono">
                      {g.kind} {g.namespace ? `${g.namespace}/` : ""}
                      {g.name}
                    </td>
                    <td data-label="Template">
                      {g.clusterRoleTemplate ? (
                        <Link to={`/k/clusterroletemplates/${encodeURIComponent(g.clusterRoleTemplate)}`}>
                          {g.clusterRoleTemplate}
                        </Link>
                      ) : (
                        "none (the platform's own check)"
                      )}
                    </td>
                    <td data-label="Granted by">
                      {g.clusterAccess ? (
                        <Link to={`/k/clusteraccesses/${encodeURIComponent(g.clusterAccess)}`}>{g.clusterAccess}</Link>
                      ) : g.clusterRoleTemplate ? (
                        "the template itself"
                      ) : (
                        "the platform"
                      )}
                    </td>
                    <td data-label="State">
                      {g.applied ? (
                        <span className="badge ok">applied</span>
                      ) : (
                        <>
                          <span className="badge bad">failed</span> {[g.reason, g.message].filter(Boolean).join(": ")}
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </>
  );
}
