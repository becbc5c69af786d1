import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { API, describeError, request } from "../../api/client";
import type { KubeList, KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { Link } from "../../router";

/** A project's virtual cluster instances, and importing one from a connected cluster. */
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
      <h2>Virtual clusters</h2>
      {q.error && <p className="error">{describeError(q.error)}</p>}
      {q.data && q.data.items.length === 0 && <p>No virtual clusters in this project.</p>}
      {q.data && q.data.items.length > 0 && (
        <ul>
          {q.data.items.map((i) => (
            <li key={i.metadata.uid}>
              <Link to={`/k/virtualclusterinstances/${ns}/${encodeURIComponent(i.metadata.name ?? "")}`}>
                {i.metadata.name}
              </Link>{" "}
              <span className="badge">{String(i.status?.phase ?? "")}</span>
            </li>
          ))}
        </ul>
      )}
      {canCreate && <ImportForm project={name} />}
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
      setMessage(`Imported ${form.importName || form.name}.`);
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
