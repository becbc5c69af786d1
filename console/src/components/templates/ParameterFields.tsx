import { FormField } from "./FormField";
import type { ParameterForm } from "./useTemplateForm";

/**
 * A template version's parameters as form fields: a choice where it declares options or is a
 * boolean, text otherwise; each with its description and default, "(required)" where the
 * template needs a value, and what is wrong with it in words beside it, said once the field is
 * left (useTemplateForm checks it), so before the form is sent.
 */
export function ParameterFields({ form }: { form: ParameterForm }) {
  if (form.decls.length === 0) return <p className="hint">This template has no parameters.</p>;
  return (
    <fieldset className="parameters">
      <legend>Parameters</legend>
      {form.decls.map((p) => {
        const options = p.type === "boolean" ? ["true", "false"] : p.options;
        const fallback = p.default === undefined ? "" : `template default: ${p.default}`;
        return (
          <FormField
            key={p.name}
            label={`${p.label || p.name}${p.required && p.default === undefined ? " (required)" : ""}`}
            value={form.values[p.name] ?? ""}
            onChange={(v) => form.change(p.name, v)}
            onBlur={() => form.leave(p.name)}
            error={form.messages.get(p.name)}
            hint={[p.description, fallback].filter(Boolean).join(" · ") || undefined}
            choices={
              options && options.length > 0
                ? [{ value: "", label: fallback || "(choose)" }, ...options.map((o) => ({ value: o, label: o }))]
                : undefined
            }
          />
        );
      })}
    </fieldset>
  );
}
