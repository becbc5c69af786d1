import { useId } from "react";

/**
 * One labelled field of a create form, with its error in words beside it: a text input, or a
 * select when `choices` are given (value and label each).
 */
export function FormField(props: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  /** Called when the field is left: where a form checks what was typed. */
  onBlur?: () => void;
  error?: string;
  hint?: string;
  required?: boolean;
  choices?: ReadonlyArray<{ value: string; label: string }>;
}) {
  const id = useId();
  const errId = `${id}-err`;
  const common = {
    id,
    value: props.value,
    required: props.required,
    onBlur: props.onBlur,
    "aria-invalid": !!props.error,
    "aria-describedby": props.error ? errId : undefined,
  };
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.choices ? (
        <select {...common} onChange={(e) => props.onChange(e.target.value)}>
          {props.choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      ) : (
        <input {...common} onChange={(e) => props.onChange(e.target.value)} />
      )}
      {props.hint && <span className="hint">{props.hint}</span>}
      {props.error && (
        <p className="field-error" id={errId}>
          {props.error}
        </p>
      )}
    </div>
  );
}
