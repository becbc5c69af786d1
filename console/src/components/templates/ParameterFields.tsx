import { FormField } from "./FormField";
import type { ParameterDecl } from "./parameters";

/** A template version's parameters as form fields: a choice where it declares options or is a boolean, text otherwise. */
export function ParameterFields(props: {
  decls: readonly ParameterDecl[];
  values: Record<string, string>;
  errors: Map<string, string>;
  onChange: (values: Record<string, string>) => void;
}) {
  if (props.decls.length === 0) return <p className="hint">This template has no parameters.</p>;
  return (
    <fieldset className="parameters">
      <legend>Parameters</legend>
      {props.decls.map((p) => {
        const options = p.type === "boolean" ? ["true", "false"] : p.options;
        const fallback = p.default === undefined ? "" : `template default: ${p.default}`;
        return (
          <FormField
            key={p.name}
            label={`${p.label || p.name}${p.required && p.default === undefined ? " (required)" : ""}`}
            value={props.values[p.name] ?? ""}
            onChange={(v) => props.onChange({ ...props.values, [p.name]: v })}
            error={props.errors.get(p.name)}
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
