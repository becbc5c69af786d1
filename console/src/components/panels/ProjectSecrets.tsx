import { useQuery } from "@tanstack/react-query";
import { API, describeError, errorToShow, request } from "../../api/client";
import type { KubeList, KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { Link } from "../../router";

/** A project secret's source shared secret as `namespace/name` ("" without one). */
function sourceOf(o: KubeObject): string {
  const ref = o.spec?.source?.sharedSecret as { name?: string; namespace?: string } | undefined;
  return ref?.name ? `${ref.namespace || "platform"}/${ref.name}` : "";
}

/** A project's secrets on its page: names, keys and sources, never values (those are on each secret's page). */
export function ProjectSecrets({ project }: { project: string }) {
  const ns = `p-${project}`;
  const q = useQuery({
    queryKey: ["list", "projectsecrets", "project", ns],
    queryFn: () => request<KubeList>("GET", `${API}/namespaces/${encodeURIComponent(ns)}/projectsecrets?limit=200`),
    refetchInterval: 5000,
  });
  const canCreate = useCan("create", "projectsecrets", { namespace: ns });
  const synced = (o: KubeList["items"][number]) => {
    const c = (o.status?.conditions as Array<{ type: string; status: string; reason?: string }> | undefined)?.find(
      (x) => x.type === "Synced",
    );
    return c ? (c.status === "True" ? "yes" : `no: ${c.reason ?? ""}`) : "";
  };
  return (
    <>
      <h2>Project secrets</h2>
      {!!errorToShow(q.error) && <p className="error">{describeError(q.error)}</p>}
      {q.data && q.data.items.length === 0 && <p className="empty">No project secrets in this project yet.</p>}
      {q.data && q.data.items.length > 0 && (
        <div className="table-wrap">
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Keys</th>
                <th scope="col">Source</th>
                <th scope="col">Synced</th>
              </tr>
            </thead>
            <tbody>
              {q.data.items.map((s) => (
                <tr key={s.metadata.uid}>
                  <td data-label="Name">
                    <Link to={`/k/projectsecrets/${ns}/${encodeURIComponent(s.metadata.name ?? "")}`}>
                      {s.metadata.name}
                    </Link>
                  </td>
                  <td data-label="Keys">{Object.keys(s.spec?.data ?? {}).join(", ")}</td>
                  <td data-label="Source">{sourceOf(s)}</td>
                  <td data-label="Synced">{synced(s)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canCreate && <Link to="/k/projectsecrets/new">Add a project secret</Link>}
    </>
  );
}
