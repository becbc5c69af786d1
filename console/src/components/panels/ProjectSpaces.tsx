import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { API, describeError, request } from "../../api/client";
import type { KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { CreationProgress } from "../instances/CreationProgress";
import { InstancePhase } from "../instances/InstancePhase";
import { type Column, ListTable } from "../lists/ListTable";
import { useNamespaceList } from "../lists/useNamespaceList";
import { FormSummary } from "../templates/FormSummary";
import { ParameterFields } from "../templates/ParameterFields";
import { PLACEMENT_FIELDS, PlacementFields } from "../templates/PlacementFields";
import type { ParameterDecl } from "../templates/parameters";
import { TemplateField, useTemplates } from "../templates/TemplateField";
import { useTemplateForm } from "../templates/useTemplateForm";

const SPACES = (ns: string) => `${API}/namespaces/${encodeURIComponent(ns)}/spaceinstances`;

/** A project's spaces with their phase, deleting one, and creating one from a SpaceTemplate (followed until it settles). */
export function ProjectSpaces({ project }: { project: string }) {
  const ns = `p-${project}`;
  const q = useNamespaceList("spaceinstances", ns);
  const canCreate = useCan("create", "spaceinstances", { namespace: ns });
  return (
    <>
      <h2>Spaces</h2>
      <ListTable
        what="the spaces of this project"
        rows={q.data?.items}
        error={q.error}
        columns={SPACE_COLUMNS}
        rowKey={(s) => s.metadata.uid ?? ""}
        rowLink={spacePage}
        empty={
          <p>
            No spaces in this project yet.{" "}
            {canCreate ? "Create one with the form below." : "Someone who manages the project can create one."}
          </p>
        }
      />
      {canCreate && <CreateSpace project={project} />}
    </>
  );
}

const spacePage = (s: KubeObject) =>
  `/k/spaceinstances/${s.metadata.namespace ?? ""}/${encodeURIComponent(s.metadata.name ?? "")}`;

const clusterOf = (s: KubeObject) => String(s.spec?.clusterRef?.cluster ?? "");
const namespaceOf = (s: KubeObject) => String(s.spec?.clusterRef?.namespace ?? "");

const SPACE_COLUMNS: Column<KubeObject>[] = [
  { label: "Name", cell: (s) => s.metadata.name, sortBy: (s) => s.metadata.name ?? "" },
  { label: "Cluster", cell: (s) => clusterOf(s), sortBy: clusterOf },
  { label: "Namespace there", cell: (s) => namespaceOf(s), sortBy: namespaceOf, mono: true },
  { label: "Phase", cell: (s) => <InstancePhase instance={s} />, sortBy: (s) => String(s.status?.phase ?? "") },
  { label: "Actions", cell: (s) => <SpaceActions space={s} /> },
];

function SpaceActions({ space }: { space: KubeObject }) {
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
    <>
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
    </>
  );
}

const SHOWN = [...PLACEMENT_FIELDS, "spec.templateRef.name"];

function CreateSpace({ project }: { project: string }) {
  const ns = `p-${project}`;
  const queryClient = useQueryClient();
  const templates = useTemplates("spacetemplates");
  const [form, setForm] = useState({ name: "", cluster: "", namespace: "", template: "" });
  const [created, setCreated] = useState("");
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
    setCreated(form.name);
    await queryClient.invalidateQueries({ queryKey: ["list", "spaceinstances"] });
  };
  const set = (key: keyof typeof form) => (v: string) => setForm({ ...form, [key]: v });
  const onSubmit = (e: FormEvent) => {
    setCreated("");
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
      {created && (
        <CreationProgress
          key={created}
          noun="Space"
          name={created}
          path={`${SPACES(ns)}/${encodeURIComponent(created)}`}
          page={`/k/spaceinstances/${ns}/${encodeURIComponent(created)}`}
        />
      )}
    </form>
  );
}
