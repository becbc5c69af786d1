import type { KubeObject } from "../../api/types";
import { type Column, ListTable } from "../lists/ListTable";

interface SpaceEntry {
  space: string;
  cluster: string;
  namespace: string;
  secrets: string[];
  synced: boolean;
  reason?: string;
  message?: string;
}

const filled = (s: SpaceEntry) => (s.synced ? "yes" : `no: ${s.reason ?? ""} ${s.message ?? ""}`);

const COLUMNS: Column<SpaceEntry>[] = [
  { label: "Space", cell: (s) => s.space, sortBy: (s) => s.space },
  { label: "Cluster", cell: (s) => s.cluster, sortBy: (s) => s.cluster },
  { label: "Namespace there", cell: (s) => s.namespace, sortBy: (s) => s.namespace },
  { label: "Secrets", cell: (s) => s.secrets.join(", "), sortBy: (s) => s.secrets.join(", ") },
  { label: "Filled", cell: filled, sortBy: filled },
];

/** Where a project secret is filled: the spaces with Secrets labelled for it, and how that went. */
export function ProjectSecretSpaces({ secret }: { secret: KubeObject }) {
  const ns = secret.metadata.namespace ?? "";
  return (
    <>
      <h2>Filled in spaces</h2>
      <ListTable
        what="the spaces this secret fills"
        rows={(secret.status?.spaces as SpaceEntry[] | undefined) ?? []}
        columns={COLUMNS}
        rowKey={(s) => s.space}
        rowLink={(s) => `/k/spaceinstances/${ns}/${encodeURIComponent(s.space)}`}
        empty={
          <p>
            No Secret in a space asks for it yet: label one management.platform/project-secret-name=
            {secret.metadata.name}.
          </p>
        }
      />
    </>
  );
}
