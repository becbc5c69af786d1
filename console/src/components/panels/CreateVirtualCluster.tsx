import { useState } from "react";
import { API, request } from "../../api/client";
import type { KubeObject } from "../../api/types";
import { navigateWithFlash } from "../flash";
import { FormField } from "../templates/FormField";
import { FormSummary } from "../templates/FormSummary";
import { ParameterFields } from "../templates/ParameterFields";
import { PLACEMENT_FIELDS, PlacementFields } from "../templates/PlacementFields";
import { type TemplateVersion, versionFor } from "../templates/parameters";
import { TemplateField, useTemplates } from "../templates/TemplateField";
import { useTemplateForm } from "../templates/useTemplateForm";

const SHOWN = [...PLACEMENT_FIELDS, "spec.templateRef.name", "spec.templateRef.version"];

/**
 * "Create virtual cluster" on a project's page: a template, its version, its parameters as a
 * form checked before it is sent, and the cluster; the server's refusals beside the fields.
 */
export function CreateVirtualCluster({ project }: { project: string }) {
  const templates = useTemplates("virtualclustertemplates");
  const [form, setForm] = useState({ name: "", cluster: "", namespace: "", template: "", version: "" });
  const template: KubeObject | undefined =
    templates.items.find((t) => t.metadata.name === form.template) ?? templates.items[0];
  const versions = (template?.spec?.versions as TemplateVersion[] | undefined) ?? [];
  const version = versionFor(versions, form.version);
  const { parameters, errors, submit } = useTemplateForm({
    decls: version?.parameters ?? [],
    template: `${form.template}@${form.version}`,
    shown: SHOWN,
  });
  const ns = `p-${project}`;
  const send = async (values: Record<string, string> | undefined) => {
    await request("POST", `${API}/namespaces/${encodeURIComponent(ns)}/virtualclusterinstances`, {
      body: instanceBody(form, ns, template?.metadata.name, values),
    });
    navigateWithFlash(
      `/k/virtualclusterinstances/${ns}/${encodeURIComponent(form.name)}`,
      `Created virtual cluster ${form.name}.`,
    );
  };
  const set = (key: keyof typeof form) => (v: string) =>
    setForm({ ...form, [key]: v, ...(key === "template" ? { version: "" } : {}) });
  return (
    <form onSubmit={submit(send)} className="inline-form" noValidate>
      <h2>Create virtual cluster</h2>
      <FormSummary errors={errors} />
      <PlacementFields
        labels={{ name: "Virtual cluster name", cluster: "Connected cluster", namespace: "Namespace there" }}
        namespaceHint={`default: p-${project}-v-NAME`}
        values={form}
        onChange={set}
        errors={errors}
      />
      <TemplateField
        label="Template"
        templates={templates}
        value={template?.metadata.name ?? ""}
        onChange={set("template")}
        error={errors.fields.get("spec.templateRef.name")}
      />
      <FormField
        label="Template version"
        value={form.version}
        onChange={set("version")}
        error={errors.fields.get("spec.templateRef.version")}
        choices={[
          { value: "", label: `newest, followed as it changes (now ${versionFor(versions, "")?.version ?? "none"})` },
          ...versions.map((v) => ({ value: v.version, label: `${v.version}, pinned` })),
        ]}
      />
      <ParameterFields form={parameters} />
      <button type="submit" disabled={!template}>
        Create virtual cluster
      </button>
    </form>
  );
}

function instanceBody(
  form: { name: string; cluster: string; namespace: string; version: string },
  namespace: string,
  template: string | undefined,
  parameters: Record<string, string> | undefined,
) {
  const place = {
    ...(form.cluster ? { cluster: form.cluster } : {}),
    ...(form.namespace ? { namespace: form.namespace } : {}),
  };
  return {
    apiVersion: "management.platform/v1",
    kind: "VirtualClusterInstance",
    metadata: { name: form.name, namespace },
    spec: {
      ...(Object.keys(place).length > 0 ? { clusterRef: place } : {}),
      ...(template ? { templateRef: { name: template, ...(form.version ? { version: form.version } : {}) } } : {}),
      ...(parameters ? { parameters } : {}),
    },
  };
}
