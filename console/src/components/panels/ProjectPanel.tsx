import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { API, describeError, request } from "../../api/client";
import type { KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { InstancePhase } from "../instances/InstancePhase";
import { type Column, ListTable } from "../lists/ListTable";
import { useNamespaceList } from "../lists/useNamespaceList";
import { CreateVirtualCluster } from "./CreateVirtualCluster";
import { ProjectSecrets } from "./ProjectSecrets";
import { ProjectSpaces } from "./ProjectSpaces";

/** A project's members, its virtual cluster instances (creating one from a template, importing one) and its spaces. */
export function ProjectPanel({ project }: { project: KubeObject }) {
  const name = project.metadata.name ?? "";
  const ns = `p-${name}`;
  const q = useNamespaceList("virtualclusterinstances", ns);
  const canCreate = useCan("create", "virtualclusterinstances", { namespace: ns });
  return (
    <>
      <Members project={project} />
      <ProjectSecrets project={name} />
      <h2>Virtual clusters</h2>
      <ListTable
        what="the virtual clusters of this project"
        rows={q.data?.items}
        error={q.error}
        columns={INSTANCE_COLUMNS}
        rowKey={(i) => i.metadata.uid ?? ""}
        rowLink={(i) => `/k/virtualclusterinstances/${ns}/${encodeURIComponent(i.metadata.name ?? "")}`}
        empty={
          <p>
            No virtual clusters in this project yet.{" "}
            {canCreate
              ? "Create one from a template or import one from a connected cluster below."
              : "Someone who manages the project can create or import one."}
          </p>
        }
      />
      {canCreate && <CreateVirtualCluster project={name} />}
      {canCreate && <ImportForm project={name} />}
      <ProjectSpaces project={name} />
    </>
  );
}

const clusterOf = (i: KubeObject) => String(i.spec?.clusterRef?.cluster ?? "");
const namespaceOf = (i: KubeObject) => String(i.spec?.clusterRef?.namespace ?? "");

const INSTANCE_COLUMNS: Column<KubeObject>[] = [
  { label: "Name", cell: (i) => i.metadata.name, sortBy: (i) => i.metadata.name ?? "" },
  { label: "Cluster", cell: clusterOf, sortBy: clusterOf },
  { label: "Namespace there", cell: namespaceOf, sortBy: namespaceOf, mono: true },
  { label: "Phase", cell: (i) => <InstancePhase instance={i} />, sortBy: (i) => String(i.status?.phase ?? "") },
];

interface Member {
  kind: string;
  name: string;
  clusterRole?: string;
}

const ROLE_WORDS: Record<string, string> = {
  "": "member: manages its virtual clusters",
  "platform-management-admin": "admin: also manages the project",
  "platform-management-view": "viewer: reads only",
};

const roleOf = (m: Member) => ROLE_WORDS[m.clusterRole ?? ""] ?? m.clusterRole ?? "";

const MEMBER_COLUMNS: Column<Member>[] = [
  { label: "Name", cell: (m) => m.name, sortBy: (m) => m.name },
  { label: "Kind", cell: (m) => m.kind, sortBy: (m) => m.kind },
  { label: "Role", cell: roleOf, sortBy: roleOf },
];

/** Who belongs to the project, and with which role. */
function Members({ project }: { project: KubeObject }) {
  const members = (project.spec?.members as Member[] | undefined) ?? [];
  return (
    <>
      <h2>Members</h2>
      <ListTable
        what="the members of this project"
        rows={members}
        columns={MEMBER_COLUMNS}
        rowKey={(m) => `${m.kind}/${m.name}`}
        rowLink={(m) => `/k/${m.kind === "Team" ? "teams" : "users"}/${encodeURIComponent(m.name)}`}
        empty={
          <p>
            No members: only users with a cluster role reach it. Whoever may edit the project adds them with its Edit
            button.
          </p>
        }
      />
    </>
  );
}

function ImportForm({ project }: { project: string }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ cluster: "", namespace: "", name: "", importName: "" });
  const [message, setMessage] = useState("");
  const [error, setError] = useState("");
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError("");
    setMessage("");
    try {
      await request("POST", `${API}/projects/${encodeURIComponent(project)}/importvirtualcluster`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: "ProjectImportVirtualCluster",
          metadata: { name: project },
          sourceVirtualCluster: {
            cluster: form.cluster,
            namespace: form.namespace,
            name: form.name,
            ...(form.importName ? { importName: form.importName } : {}),
          },
        },
      });
      setMessage(`Imported ${form.importName || form.name} into ${project}.`);
      await queryClient.invalidateQueries({ queryKey: ["list", "virtualclusterinstances"] });
    } catch (err) {
      setError(describeError(err));
    }
  };
  const field = (key: keyof typeof form, label: string, required = true) => (
    <>
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input
        id={`${id}-${key}`}
        value={form[key]}
        required={required}
        onChange={(e) => setForm({ ...form, [key]: e.target.value })}
      />
    </>
  );
  return (
    <form onSubmit={submit} className="inline-form">
      <h2>Import a virtual cluster</h2>
      {field("cluster", "Connected cluster")}
      {field("namespace", "Its namespace there")}
      {field("name", "Virtual cluster name")}
      {field("importName", "Name in this project (optional)", false)}
      <button type="submit">Import</button>
      {message && <p role="status">{message}</p>}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </form>
  );
}
