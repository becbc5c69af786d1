import type { KubeObject } from "../../api/types";

interface SpaceEntry {
  space: string;
  cluster: string;
  namespace: string;
  secrets: string[];
  synced: boolean;
  reason?: string;
  message?: string;
}

/** Where a project secret is filled: the spaces with Secrets labelled for it, and how that went. */
export function ProjectSecretSpaces({ secret }: { secret: KubeObject }) {
  const spaces = (secret.status?.spaces as SpaceEntry[] | undefined) ?? [];
  return (
    <>
      <h2>Filled in spaces</h2>
      {spaces.length === 0 ? (
        <p className="empty">
          No Secret in a space asks for it yet: label one management.platform/project-secret-name=
          {secret.metadata.name}.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">Space</th>
                <th scope="col">Cluster</th>
                <th scope="col">Namespace there</th>
                <th scope="col">Secrets</th>
                <th scope="col">Filled</th>
              </tr>
            </thead>
            <tbody>
              {spaces.map((s) => (
                <tr key={s.space}>
                  <td data-label="Space">{s.space}</td>
                  <td data-label="Cluster">{s.cluster}</td>
                  <td data-label="Namespace there">{s.namespace}</td>
                  <td data-label="Secrets">{s.secrets.join(", ")}</td>
                  <td data-label="Filled">{s.synced ? "yes" : `no: ${s.reason ?? ""} ${s.message ?? ""}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
