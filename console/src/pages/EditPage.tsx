import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useId, useState } from "react";
import { parse, stringify } from "yaml";
import { ApiError } from "../api/client";
import { mergePatch } from "../api/merge-patch";
import { objectView } from "../api/object-view";
import { createObject, getObject, patchObject } from "../api/resources";
import type { KubeObject } from "../api/types";
import { AccessEditor, type AccessRule } from "../components/AccessEditor";
import { errorSummary } from "../components/error-summary";
import { FieldInput } from "../components/FieldInput";
import { formatLabels, getAnnotation, getPath, parseLabels, setAnnotation, setPath } from "../components/fields";
import { navigateWithFlash } from "../components/flash";
import type { KindInfo } from "../kinds";
import { detailPath } from "./ListPage";

/**
 * Create (no name) or edit an object: a form for the common fields, or YAML for all of it. An
 * edit sends only what changed (a merge patch against the object as the editor showed it), so
 * fields the editor leaves out (managedFields, hidden secret values, data the caller may not read)
 * keep what is stored.
 */
export function EditPage(props: { kind: KindInfo; name?: string; namespace?: string }) {
  const { kind } = props;
  const creating = !props.name;
  const [obj, setObj] = useState<KubeObject | undefined>(
    creating ? { metadata: { name: "", namespace: kind.defaultNamespace } } : undefined,
  );
  /** The object as loaded, as the editor shows it: what an edit is compared with. */
  const [original, setOriginal] = useState<KubeObject>();
  const [mode, setMode] = useState<"form" | "yaml">("form");
  const [yamlText, setYamlText] = useState("");
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const queryClient = useQueryClient();
  const load = () => {
    if (!props.name) return;
    setError(undefined);
    getObject(kind, props.name, props.namespace).then((o) => {
      const view = objectView(o, kind.secretFields);
      setOriginal(view);
      setObj(view);
    }, setError);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: loads once per page (the page is keyed by object)
  useEffect(load, []);
  const switchMode = (m: "form" | "yaml") => {
    if (m === "yaml" && obj) setYamlText(stringify(obj));
    if (m === "form") {
      try {
        setObj(parse(yamlText) as KubeObject);
      } catch (err) {
        setError(err);
        return;
      }
    }
    setMode(m);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(undefined);
    try {
      const body = mode === "yaml" ? (parse(yamlText) as KubeObject) : obj!;
      let saved: KubeObject = body;
      let message: string;
      if (creating) {
        saved = await createObject(kind, body);
        message = `${kind.kind} ${saved.metadata.name ?? ""} created.`;
      } else {
        const patch = mergePatch(original, body);
        message = patch ? "Saved." : "Nothing changed: nothing was saved.";
        if (patch) {
          patch.metadata = { ...(patch.metadata as object), resourceVersion: original?.metadata.resourceVersion };
          saved = await patchObject(kind, props.name ?? "", props.namespace, patch);
        }
      }
      await queryClient.invalidateQueries({ queryKey: ["list", kind.plural] });
      await queryClient.invalidateQueries({ queryKey: ["object", kind.plural] });
      navigateWithFlash(detailPath(kind, saved), message);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };
  const fieldErrors = error instanceof ApiError ? error.fieldErrors() : new Map<string, string>();
  const conflict = error instanceof ApiError && error.code === 409 && !creating;
  return (
    <section>
      <h1>
        {creating ? `Create ${kind.kind}` : `Edit ${kind.kind} `}
        {!creating && <span className="mono">{props.name}</span>}
      </h1>
      <EditorTabs mode={mode} onSwitch={switchMode} />
      {error !== undefined && (
        <SaveError error={error} fieldsShown={[...fieldErrors.keys()]} onReload={conflict ? load : undefined} />
      )}
      {!obj && !error && <p>Loading…</p>}
      {obj && (
        <form onSubmit={submit} className="edit-form" noValidate>
          {mode === "yaml" ? (
            <YamlEditor text={yamlText} onChange={setYamlText} />
          ) : (
            <FormFields kind={kind} obj={obj} creating={creating} onChange={setObj} errors={fieldErrors} />
          )}
          {/* Each refusal once: beside its field, or here when the form has no such field. */}
          <UnshownFieldErrors errors={[...fieldErrors].filter(([f]) => mode === "yaml" || !shownInForm(kind, f))} />
          <div className="actions">
            <button type="submit" className="primary" disabled={saving}>
              {creating ? "Create" : "Save"}
            </button>
            <button type="button" onClick={() => window.history.back()}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

function EditorTabs(props: { mode: "form" | "yaml"; onSwitch: (m: "form" | "yaml") => void }) {
  return (
    <fieldset className="tabs">
      <legend className="sr-only">Editor</legend>
      <button type="button" aria-pressed={props.mode === "form"} onClick={() => props.onSwitch("form")}>
        Form
      </button>
      <button type="button" aria-pressed={props.mode === "yaml"} onClick={() => props.onSwitch("yaml")}>
        YAML
      </button>
    </fieldset>
  );
}

function UnshownFieldErrors({ errors }: { errors: Array<[string, string]> }) {
  if (errors.length === 0) return null;
  return (
    <ul className="field-error">
      {errors.map(([f, m]) => (
        <li key={f}>
          <span className="mono">{f}</span>: {m}
        </li>
      ))}
    </ul>
  );
}

/**
 * The server's answer in words; when it names fields, only how many (each is told below, beside
 * its field or in the list under the form); a 409 conflict offers to load the current version.
 */
function SaveError(props: { error: unknown; fieldsShown: string[]; onReload?: () => void }) {
  const summary = errorSummary(props.error, props.fieldsShown);
  return (
    <div role="alert" className="error">
      <p>{summary}</p>
      {props.onReload && (
        <button type="button" onClick={props.onReload}>
          Reload the current version (your changes are discarded)
        </button>
      )}
    </div>
  );
}

function shownInForm(kind: KindInfo, field: string): boolean {
  return (
    field === "metadata.name" ||
    field === "metadata.labels" ||
    field.startsWith("spec.access") ||
    kind.fields.some((f) => field === f.path || field.startsWith(`${f.path}[`))
  );
}

function YamlEditor(props: { text: string; onChange: (t: string) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>The whole object (YAML)</label>
      <textarea
        id={id}
        className="yaml"
        spellCheck={false}
        value={props.text}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </div>
  );
}

function FormFields(props: {
  kind: KindInfo;
  obj: KubeObject;
  creating: boolean;
  onChange: (o: KubeObject) => void;
  errors: Map<string, string>;
}) {
  const { kind, obj, errors } = props;
  const set = (path: string, v: unknown) => props.onChange(setPath(obj, path, v));
  return (
    <>
      {props.creating && (
        <FieldInput
          field={{ path: "metadata.name", label: "Name", type: "text" }}
          value={obj.metadata.name}
          error={errors.get("metadata.name")}
          onChange={(v) => set("metadata.name", v)}
        />
      )}
      {props.creating && kind.namespaced && (
        <FieldInput
          field={{ path: "metadata.namespace", label: "Namespace", type: "text" }}
          value={obj.metadata.namespace}
          error={errors.get("metadata.namespace")}
          onChange={(v) => set("metadata.namespace", v)}
        />
      )}
      <FieldInput
        field={{ path: "metadata.labels", label: "Labels (key=value, comma separated)", type: "text" }}
        value={formatLabels(obj.metadata.labels)}
        error={errors.get("metadata.labels")}
        onChange={(v) => props.onChange({ ...obj, metadata: { ...obj.metadata, labels: parseLabels(String(v)) } })}
      />
      {kind.fields.map((f) => (
        <FieldInput
          key={f.annotation ?? f.path}
          field={f}
          value={f.annotation ? getAnnotation(obj, f.annotation) : getPath(obj, f.path)}
          error={errors.get(f.path)}
          errors={errors}
          onChange={(v) => (f.annotation ? props.onChange(setAnnotation(obj, f.annotation, v)) : set(f.path, v))}
        />
      ))}
      {kind.secretFields.includes("spec.data") && props.creating && (
        <SecretDataInput obj={obj} onChange={props.onChange} error={errors.get("spec.data")} />
      )}
      {kind.access && (
        <AccessEditor
          rules={(obj.spec?.access as AccessRule[] | undefined) ?? []}
          onChange={(rules) => set("spec.access", rules)}
          errors={errors}
        />
      )}
    </>
  );
}

/** New secret values as `key=value` lines; sent base64-encoded as the API stores them. */
function SecretDataInput(props: { obj: KubeObject; onChange: (o: KubeObject) => void; error?: string }) {
  const id = useId();
  const [text, setText] = useState("");
  return (
    <div className="field">
      <label htmlFor={id}>Values (one key=value a line)</label>
      <textarea
        id={id}
        value={text}
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          const data: Record<string, string> = {};
          for (const line of e.target.value.split("\n")) {
            const eq = line.indexOf("=");
            if (eq > 0) data[line.slice(0, eq).trim()] = toBase64(line.slice(eq + 1));
          }
          props.onChange(setPath(props.obj, "spec.data", Object.keys(data).length ? data : undefined));
        }}
      />
      {props.error && <p className="field-error">{props.error}</p>}
    </div>
  );
}

export function toBase64(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

export function fromBase64(s: string): string {
  const bin = atob(s);
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}
