import type { KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { Link } from "../../router";
import { type Column, ListTable } from "../lists/ListTable";
import { useNamespaceList } from "../lists/useNamespaceList";

/** A project secret's source shared secret as `namespace/name` ("" without one). */
function sourceOf(o: KubeObject): string {
  const ref = o.spec?.source?.sharedSecret as { name?: string; namespace?: string } | undefined;
  return ref?.name ? `${ref.namespace || "platform"}/${ref.name}` : "";
}

/** Whether the secret's values reached the spaces that ask for them (its Synced condition). */
function synced(o: KubeObject): string {
  const c = (o.status?.conditions as Array<{ type: string; status: string; reason?: string }> | undefined)?.find(
    (x) => x.type === "Synced",
  );
  return c ? (c.status === "True" ? "yes" : `no: ${c.reason ?? ""}`) : "";
}

const keysOf = (o: KubeObject) => Object.keys(o.spec?.data ?? {}).join(", ");

const SECRET_COLUMNS: Column<KubeObject>[] = [
  { label: "Name", cell: (s) => s.metadata.name, sortBy: (s) => s.metadata.name ?? "" },
  { label: "Keys", cell: keysOf, sortBy: keysOf },
  { label: "Source", cell: sourceOf, sortBy: sourceOf },
  { label: "Synced", cell: synced, sortBy: synced },
];

/** A project's secrets on its page: names, keys and sources, never values (those are on each secret's page). */
export function ProjectSecrets({ project }: { project: string }) {
  const ns = `p-${project}`;
  const q = useNamespaceList("projectsecrets", ns);
  const canCreate = useCan("create", "projectsecrets", { namespace: ns });
  return (
    <>
      <h2>Project secrets</h2>
      <ListTable
        what="the project secrets of this project"
        rows={q.data?.items}
        error={q.error}
        columns={SECRET_COLUMNS}
        rowKey={(s) => s.metadata.uid ?? ""}
        rowLink={(s) => `/k/projectsecrets/${ns}/${encodeURIComponent(s.metadata.name ?? "")}`}
        empty={
          <p>
            No project secrets in this project yet.{" "}
            {canCreate
              ? "Add one with the link below; spaces of the project then ask for it by a label."
              : "Someone who manages the project can add one."}
          </p>
        }
      />
      {canCreate && <Link to="/k/projectsecrets/new">Add a project secret</Link>}
    </>
  );
}
