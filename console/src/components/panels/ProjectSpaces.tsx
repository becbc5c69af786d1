import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { API, describeError, errorToShow, request } from "../../api/client";
import type { KubeList, KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { Link } from "../../router";
import { FormField } from "../templates/FormField";
import { ParameterFields } from "../templates/ParameterFields";
import { type ParameterDecl, parameterErrors, parametersToSend } from "../templates/parameters";
import { type FormErrors, formErrors, NO_ERRORS } from "../templates/server-errors";

const SPACES = (ns: string) => `${API}/namespaces/${encodeURIComponent(ns)}/spaceinstances`;

/** A project's spaces with their phase, deleting one, and creating one from a SpaceTemplate. */
export function ProjectSpaces({ project }: { project: string }) {
  const ns = `p-${project}`;
  const q = useQuery({
    queryKey: ["list", "spaceinstances", "project", ns],
    queryFn: () => request<KubeList>("GET", `${SPACES(ns)}?limit=200`),
    refetchInterval: 5000,
  });
  const canCreate = useCan("create", "spaceinstances", { namespace: ns });
  return (
    <>
      <h2>Spaces</h2>
      {!!errorToShow(q.error) && <p className="error">{describeError(q.error)}</p>}
      {q.data && q.data.items.length === 0 && (
        <p className="empty">
          No spaces in this project yet.{" "}
          {canCreate ? "Create one below." : "Someone who manages the project can create one."}
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
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {q.data.items.map((s) => (
                <SpaceRow key={s.metadata.uid} space={s} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canCreate && <CreateSpace project={project} />}
    </>
  );
}

function SpaceRow({ space }: { space: KubeObject }) {
  const ns = space.metadata.namespace ?? "";
  const name = space.metadata.name ?? "";
  const queryClient = useQueryClient();
  const canDelete = useCan("delete", "spaceinstances", { name, namespace: ns });
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState("");
  const remove = async () => {
    setError("");
    try {
      await request("DELETE", `${SPACES(ns)}/${encodeURIComponent(name)}`);
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: ["list", "spaceinstances"] });
    } catch (err) {
      setError(describeError(err));
    }
  };
  const terminating = !!space.metadata.deletionTimestamp;
  return (
    <tr>
      <td data-label="Name">
        <Link to={`/k/spaceinstances/${ns}/${encodeURIComponent(name)}`}>{name}</Link>
      </td>
      <td data-label="Cluster">{String(space.spec?.clusterRef?.cluster ?? "")}</td>
      <td data-label="Namespace there" className="mono">
        {String(space.spec?.clusterRef?.namespace ?? "")}
      </td>
      <td data-label="Phase">
        <span className="badge">{terminating ? "Deleting" : String(space.status?.phase || "unknown")}</span>{" "}
        {String(space.status?.message ?? "")}
      </td>
      <td data-label="Actions">
        {canDelete && !terminating && !confirming && (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
        {confirming && (
          <fieldset className="confirm">
            <legend>Delete {name} and its namespace on the cluster?</legend>
            <button type="button" className="danger" onClick={remove}>
              Yes, delete {name}
            </button>{" "}
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </fieldset>
        )}
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </td>
    </tr>
  );
}

const SHOWN = ["metadata.name", "spec.clusterRef.cluster", "spec.clusterRef.namespace", "spec.templateRef.name"];

function CreateSpace({ project }: { project: string }) {
  const ns = `p-${project}`;
  const queryClient = useQueryClient();
  const templates = useQuery({
    queryKey: ["list", "spacetemplates"],
    queryFn: () => request<KubeList>("GET", `${API}/spacetemplates?limit=200`),
  });
  const [form, setForm] = useState({ name: "", cluster: "", namespace: "", template: "" });
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [message, setMessage] = useState("");
  const template = templates.data?.items.find((t) => t.metadata.name === form.template);
  const decls = (template?.spec?.parameters as ParameterDecl[] | undefined) ?? [];
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setMessage("");
    const checked = parameterErrors(decls, values);
    if (checked.size > 0) {
      setErrors({ ...NO_ERRORS, parameters: checked, summary: "Not sent: see the values marked below." });
      return;
    }
    setErrors(NO_ERRORS);
    const parameters = template ? parametersToSend(values) : undefined;
    try {
      await request("POST", SPACES(ns), {
        body: {
          apiVersion: "management.platform/v1",
          kind: "SpaceInstance",
          metadata: { name: form.name, namespace: ns },
          spec: {
            clusterRef: { cluster: form.cluster, ...(form.namespace ? { namespace: form.namespace } : {}) },
            ...(template ? { templateRef: { name: form.template } } : {}),
            ...(parameters ? { parameters } : {}),
          },
        },
      });
      setMessage(`Created space ${form.name}.`);
      await queryClient.invalidateQueries({ queryKey: ["list", "spaceinstances"] });
    } catch (err) {
      setErrors(formErrors(err, SHOWN));
    }
  };
  const set = (key: keyof typeof form) => (v: string) => {
    setForm({ ...form, [key]: v });
    if (key === "template") setValues({});
  };
  return (
    <form onSubmit={submit} className="inline-form" noValidate>
      <h2>Create a space</h2>
      {errors.summary && (
        <p role="alert" className="error">
          {errors.summary}
        </p>
      )}
      <FormField
        label="Space name"
        value={form.name}
        onChange={set("name")}
        error={errors.fields.get("metadata.name")}
      />
      <FormField
        label="Cluster of the space"
        value={form.cluster}
        onChange={set("cluster")}
        error={errors.fields.get("spec.clusterRef.cluster")}
      />
      <FormField
        label="Namespace on the cluster"
        hint="default: the space's name"
        value={form.namespace}
        onChange={set("namespace")}
        error={errors.fields.get("spec.clusterRef.namespace")}
      />
      <FormField
        label="Space template"
        value={form.template}
        onChange={set("template")}
        error={errors.fields.get("spec.templateRef.name")}
        choices={[
          { value: "", label: "none: an empty namespace" },
          ...(templates.data?.items ?? []).map((t) => ({ value: t.metadata.name ?? "", label: t.metadata.name ?? "" })),
        ]}
      />
      {template && <ParameterFields decls={decls} values={values} errors={errors.parameters} onChange={setValues} />}
      <button type="submit">Create space</button>
      {message && <p role="status">{message}</p>}
    </form>
  );
}
