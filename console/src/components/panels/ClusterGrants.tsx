import type { KubeObject } from "../../api/types";
import { Link } from "../../router";
import { type Column, ListTable } from "../lists/ListTable";
import { failedListInWords, type GrantEntry, splitGrantEntries } from "./cluster-grant-entries";

const objectOf = (g: GrantEntry) => `${g.kind} ${g.namespace ? `${g.namespace}/` : ""}${g.name}`;
const stateOf = (g: GrantEntry) => (g.applied ? "applied" : "failed");

const COLUMNS: Column<GrantEntry>[] = [
  { label: "Object on the cluster", cell: objectOf, sortBy: objectOf, mono: true },
  {
    label: "Template",
    cell: (g) => (
      <Link to={`/k/clusterroletemplates/${encodeURIComponent(g.clusterRoleTemplate)}`}>{g.clusterRoleTemplate}</Link>
    ),
    sortBy: (g) => g.clusterRoleTemplate,
  },
  {
    label: "Granted by",
    cell: (g) =>
      g.clusterAccess ? (
        <Link to={`/k/clusteraccesses/${encodeURIComponent(g.clusterAccess)}`}>{g.clusterAccess}</Link>
      ) : (
        "the template itself"
      ),
    sortBy: (g) => g.clusterAccess ?? "",
  },
  {
    label: "State",
    cell: (g) =>
      g.applied ? (
        <span className="badge ok">applied</span>
      ) : (
        <>
          <span className="badge bad">failed</span> {[g.reason, g.message].filter(Boolean).join(": ")}
        </>
      ),
    sortBy: stateOf,
  },
];

/**
 * Access inside the cluster: the ClusterRoles and bindings the platform keeps on it for its
 * ClusterRoleTemplates and ClusterAccesses (docs/cluster-access.md), failed ones first, so a
 * binding that could not be written is seen at a glance. A list of the platform's objects that
 * the cluster refused is said as an error above them, not as a grant.
 */
export function ClusterGrants({ cluster }: { cluster: KubeObject }) {
  const { grants, failedLists } = splitGrantEntries((cluster.status?.grants as GrantEntry[] | undefined) ?? []);
  const failed = grants.filter((g) => !g.applied).length;
  return (
    <>
      <h2>Access inside the cluster</h2>
      {failedLists.map((e) => (
        <p key={e.kind} role="alert" className="error">
          {failedListInWords(e)} <span className="hint">{e.message}</span>
        </p>
      ))}
      {grants.length > 0 && (
        <p>
          {grants.length - failed} of {grants.length} applied{" "}
          {failed > 0 && <span className="badge bad">{failed} failed</span>}
        </p>
      )}
      <ListTable
        what="the access objects the platform keeps on this cluster"
        rows={grants}
        columns={COLUMNS}
        rowKey={(g) => `${g.kind}/${g.namespace ?? ""}/${g.name}`}
        initialSort={{ column: "State", descending: true }}
        empty={
          <p>
            No ClusterRoleTemplate or ClusterAccess reaches this cluster: users may reach it through the platform, and
            have no rights inside it unless someone bound them there. Create a ClusterRoleTemplate naming this cluster
            to grant some.
          </p>
        }
      />
    </>
  );
}
