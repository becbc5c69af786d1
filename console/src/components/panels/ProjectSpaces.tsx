import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { API, describeError, errorToShow, request } from "../../api/client";
import type { KubeList, KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { Link } from "../../router";
import { FormSummary } from "../templates/FormSummary";
import { ParameterFields } from "../templates/ParameterFields";
import { PLACEMENT_FIELDS, PlacementFields } from "../templates/PlacementFields";
import type { ParameterDecl } from "../templates/parameters";
import { TemplateField, useTemplates } from "../templates/TemplateField";
import { useTemplateForm } from "../templates/useTemplateForm";

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

const SHOWN = [...PLACEMENT_FIELDS, "spec.templateRef.name"];

function CreateSpace({ project }: { project: string }) {
  const ns = `p-${project}`;
  const queryClient = useQueryClient();
  const templates = useTemplates("spacetemplates");
  const [form, setForm] = useState({ name: "", cluster: "", namespace: "", template: "" });
  const [message, setMessage] = useState("");
  const template = templates.items.find((t) => t.metadata.name === form.template);
  const { parameters, errors, submit } = useTemplateForm({
    decls: (template?.spec?.parameters as ParameterDecl[] | undefined) ?? [],
    template: form.template,
    shown: SHOWN,
  });
  const send = async (values: Record<string, string> | undefined) => {
    await request("POST", SPACES(ns), {
      body: {
        apiVersion: "management.platform/v1",
        kind: "SpaceInstance",
        metadata: { name: form.name, namespace: ns },
        spec: {
          clusterRef: { cluster: form.cluster, ...(form.namespace ? { namespace: form.namespace } : {}) },
          ...(template ? { templateRef: { name: form.template } } : {}),
          ...(template && values ? { parameters: values } : {}),
        },
      },
    });
    setMessage(`Created space ${form.name}.`);
    await queryClient.invalidateQueries({ queryKey: ["list", "spaceinstances"] });
  };
  const set = (key: keyof typeof form) => (v: string) => setForm({ ...form, [key]: v });
  const onSubmit = (e: FormEvent) => {
    setMessage("");
    return submit(send)(e);
  };
  return (
    <form onSubmit={onSubmit} className="inline-form" noValidate>
      <h2>Create a space</h2>
      <FormSummary errors={errors} />
      <PlacementFields
        labels={{ name: "Space name", cluster: "Cluster of the space", namespace: "Namespace on the cluster" }}
        namespaceHint="default: the space's name"
        values={form}
        onChange={set}
        errors={errors}
      />
      <TemplateField
        label="Space template"
        templates={templates}
        value={form.template}
        onChange={set("template")}
        error={errors.fields.get("spec.templateRef.name")}
        none="none: an empty namespace"
      />
      {template && <ParameterFields form={parameters} />}
      <button type="submit">Create space</button>
      {message && <p role="status">{message}</p>}
    </form>
  );
}
