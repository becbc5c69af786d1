import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { API, describeError, errorToShow, request } from "../../api/client";
import type { KubeList, KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { Link } from "../../router";
import { CreateVirtualCluster } from "./CreateVirtualCluster";
import { ProjectSecrets } from "./ProjectSecrets";
import { ProjectSpaces } from "./ProjectSpaces";

/** A project's members, its virtual cluster instances (creating one from a template, importing one) and its spaces. */
export function ProjectPanel({ project }: { project: KubeObject }) {
  const name = project.metadata.name ?? "";
  const ns = `p-${name}`;
  const q = useQuery({
    queryKey: ["list", "virtualclusterinstances", "project", ns],
    queryFn: () =>
      request<KubeList>("GET", `${API}/namespaces/${encodeURIComponent(ns)}/virtualclusterinstances?limit=200`),
    refetchInterval: 5000,
  });
  const canCreate = useCan("create", "virtualclusterinstances", { namespace: ns });
  return (
    <>
      <Members project={project} />
      <ProjectSecrets project={name} />
      <h2>Virtual clusters</h2>
      {!!errorToShow(q.error) && <p className="error">{describeError(q.error)}</p>}
      {q.data && q.data.items.length === 0 && (
        <p className="empty">
          No virtual clusters in this project yet.{" "}
          {canCreate
            ? "Create one from a template or import one from a connected cluster below."
            : "Someone who manages the project can create or import one."}
        </p>
      )}
      {q.data && q.data.items.length > 0 && (
        <div className="table-wrap">
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Cluster</th>
                <th scope="col">Namespace there</th>
                <th scope="col">Phase</th>
              </tr>
            </thead>
            <tbody>
              {q.data.items.map((i) => (
                <tr key={i.metadata.uid}>
                  <td data-label="Name">
                    <Link to={`/k/virtualclusterinstances/${ns}/${encodeURIComponent(i.metadata.name ?? "")}`}>
                      {i.metadata.name}
                    </Link>
                  </td>
                  <td data-label="Cluster">{String(i.spec?.clusterRef?.cluster ?? "")}</td>
                  <td data-label="Namespace there">{String(i.spec?.clusterRef?.namespace ?? "")}</td>
                  <td data-label="Phase">
                    <span className="badge">{String(i.status?.phase || "unknown")}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canCreate && <CreateVirtualCluster project={name} />}
      {canCreate && <ImportForm project={name} />}
      <ProjectSpaces project={name} />
    </>
  );
}

const ROLE_WORDS: Record<string, string> = {
  "": "member: manages its virtual clusters",
  "platform-management-admin": "admin: also manages the project",
  "platform-management-view": "viewer: reads only",
};

/** Who belongs to the project, and with which role. */
function Members({ project }: { project: KubeObject }) {
  const members = (project.spec?.members as Array<{ kind: string; name: string; clusterRole?: string }>) ?? [];
  return (
    <>
      <h2>Members</h2>
      {members.length === 0 ? (
        <p className="empty">No members: only users with a cluster role reach it. Add members with Edit.</p>
      ) : (
        <ul>
          {members.map((m) => (
            <li key={`${m.kind}/${m.name}`}>
              {m.kind}{" "}
              <Link to={`/k/${m.kind === "Team" ? "teams" : "users"}/${encodeURIComponent(m.name)}`}>{m.name}</Link> ·{" "}
              {ROLE_WORDS[m.clusterRole ?? ""] ?? m.clusterRole}
            </li>
          ))}
        </ul>
      )}
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
