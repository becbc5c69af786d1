import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { API, describeError, errorToShow, request } from "../../api/client";
import type { KubeList, KubeObject } from "../../api/types";
import { navigateWithFlash } from "../flash";
import { FormField } from "../templates/FormField";
import { ParameterFields } from "../templates/ParameterFields";
import { parameterErrors, parametersToSend, type TemplateVersion, versionFor } from "../templates/parameters";
import { type FormErrors, formErrors, NO_ERRORS } from "../templates/server-errors";

const SHOWN = [
  "metadata.name",
  "spec.clusterRef.cluster",
  "spec.clusterRef.namespace",
  "spec.templateRef.name",
  "spec.templateRef.version",
];

/**
 * "Create virtual cluster" on a project's page: a template, its version, its parameters as a
 * form checked before it is sent, and the cluster; the server's refusals beside the fields.
 */
export function CreateVirtualCluster({ project }: { project: string }) {
  const templates = useQuery({
    queryKey: ["list", "virtualclustertemplates"],
    queryFn: () => request<KubeList>("GET", `${API}/virtualclustertemplates?limit=200`),
  });
  const [form, setForm] = useState({ name: "", cluster: "", namespace: "", template: "", version: "" });
  const [values, setValues] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const items = templates.data?.items ?? [];
  const template: KubeObject | undefined = items.find((t) => t.metadata.name === form.template) ?? items[0];
  const versions = (template?.spec?.versions as TemplateVersion[] | undefined) ?? [];
  const version = versionFor(versions, form.version);
  const decls = version?.parameters ?? [];
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const checked = parameterErrors(decls, values);
    if (checked.size > 0) {
      setErrors({ ...NO_ERRORS, parameters: checked, summary: "Not sent: see the values marked below." });
      return;
    }
    setErrors(NO_ERRORS);
    const ns = `p-${project}`;
    try {
      await request("POST", `${API}/namespaces/${encodeURIComponent(ns)}/virtualclusterinstances`, {
        body: instanceBody(form, ns, template?.metadata.name, values),
      });
      navigateWithFlash(
        `/k/virtualclusterinstances/${ns}/${encodeURIComponent(form.name)}`,
        `Created virtual cluster ${form.name}.`,
      );
    } catch (err) {
      setErrors(formErrors(err, SHOWN));
    }
  };
  const set = (key: keyof typeof form) => (v: string) => {
    setForm({ ...form, [key]: v, ...(key === "template" ? { version: "" } : {}) });
    if (key === "template" || key === "version") setValues({});
  };
  return (
    <form onSubmit={submit} className="inline-form" noValidate>
      <h2>Create virtual cluster</h2>
      {!!errorToShow(templates.error) && <p className="error">{describeError(templates.error)}</p>}
      {errors.summary && (
        <p role="alert" className="error">
          {errors.summary}
        </p>
      )}
      <FormField
        label="Virtual cluster name"
        value={form.name}
        onChange={set("name")}
        error={errors.fields.get("metadata.name")}
      />
      <FormField
        label="Connected cluster"
        value={form.cluster}
        onChange={set("cluster")}
        error={errors.fields.get("spec.clusterRef.cluster")}
      />
      <FormField
        label="Namespace there"
        hint={`default: p-${project}-v-NAME`}
        value={form.namespace}
        onChange={set("namespace")}
        error={errors.fields.get("spec.clusterRef.namespace")}
      />
      <FormField
        label="Template"
        value={template?.metadata.name ?? ""}
        onChange={set("template")}
        error={errors.fields.get("spec.templateRef.name")}
        choices={items.map((t) => ({ value: t.metadata.name ?? "", label: templateLabel(t) }))}
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
      <ParameterFields decls={decls} values={values} errors={errors.parameters} onChange={setValues} />
      <button type="submit" disabled={!template}>
        Create virtual cluster
      </button>
    </form>
  );
}

function templateLabel(t: KubeObject): string {
  const shown = String(t.spec?.displayName ?? "");
  return shown ? `${shown} (${t.metadata.name})` : (t.metadata.name ?? "");
}

function instanceBody(
  form: { name: string; cluster: string; namespace: string; version: string },
  namespace: string,
  template: string | undefined,
  values: Record<string, string>,
) {
  const parameters = parametersToSend(values);
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
