import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { API, ApiError, request } from "../api/client";
import type { KubeObject } from "../api/types";
import { CopyButton } from "../components/CopyButton";
import { errorSummary } from "../components/error-summary";
import { parseHours } from "../components/hours";

/** A new access key for the signed-in user (or another user/team for admins); its value is shown once. */
export function CreateAccessKey() {
  const id = useId();
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ displayName: "", ttlHours: "", owner: "", scope: "" });
  const [created, setCreated] = useState<KubeObject>();
  const [error, setError] = useState<unknown>();
  const [hoursError, setHoursError] = useState("");
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    const spec: Record<string, unknown> = {};
    if (form.displayName) spec.displayName = form.displayName;
    if (form.ttlHours) {
      const ttl = parseHours(form.ttlHours);
      if ("error" in ttl) {
        setHoursError(ttl.error);
        return;
      }
      spec.ttl = ttl.seconds;
    }
    setHoursError("");
    if (form.owner.startsWith("team:")) spec.team = form.owner.slice(5);
    else if (form.owner) spec.user = form.owner.replace(/^user:/, "");
    if (form.scope) spec.scope = { projects: [{ project: form.scope }], allowPlatformCli: true };
    try {
      const key = await request<KubeObject>("POST", `${API}/ownedaccesskeys`, {
        body: {
          apiVersion: "management.platform/v1",
          kind: "OwnedAccessKey",
          metadata: { generateName: "key-" },
          spec,
        },
      });
      setCreated(key);
      await queryClient.invalidateQueries({ queryKey: ["subject-keys"] });
      await queryClient.invalidateQueries({ queryKey: ["list", "ownedaccesskeys"] });
    } catch (err) {
      setError(err);
    }
  };
  if (created) {
    const value = String(created.spec?.key ?? "");
    return (
      <section>
        <h1>Access key {created.metadata.name} created</h1>
        <p className="notice" role="status">
          Copy the key now. It is shown only this once: the server keeps only its hash.
        </p>
        <pre className="code secret-value" data-testid="new-key">
          {value}
        </pre>
        <CopyButton text={value} label="Copy key" />
      </section>
    );
  }
  const errors = error instanceof ApiError ? error.fieldErrors() : new Map<string, string>();
  const input = (key: keyof typeof form, label: string, field: string, hint?: string) => (
    <div className="field">
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input
        id={`${id}-${key}`}
        value={form[key]}
        aria-invalid={!!errors.get(field) || (key === "ttlHours" && !!hoursError)}
        aria-describedby={errors.get(field) || (key === "ttlHours" && hoursError) ? `${id}-${key}-err` : undefined}
        onChange={(e) => setForm({ ...form, [key]: e.target.value })}
      />
      {hint && <span className="hint">{hint}</span>}
      {(errors.get(field) || (key === "ttlHours" && hoursError)) && (
        <p className="field-error" id={`${id}-${key}-err`}>
          {key === "ttlHours" && hoursError ? hoursError : errors.get(field)}
        </p>
      )}
    </div>
  );
  return (
    <section>
      <h1>Create an access key</h1>
      <form onSubmit={submit} className="edit-form">
        {input("displayName", "Display name", "spec.displayName")}
        {input("ttlHours", "Expires after (hours; empty: never)", "spec.ttl")}
        {input("owner", "For (empty: me; user:NAME or team:NAME)", "spec.user")}
        {input(
          "scope",
          "Limit to project (optional)",
          "spec.scope",
          "the key then reaches only this project and its virtual clusters",
        )}
        {error !== undefined && (
          <p role="alert" className="error">
            {errorSummary(error, ["spec.displayName", "spec.ttl", "spec.user", "spec.scope"])}
          </p>
        )}
        <button type="submit" className="primary">
          Create key
        </button>
      </form>
    </section>
  );
}
