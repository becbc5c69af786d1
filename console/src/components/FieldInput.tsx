import { useId } from "react";
import type { FieldDef } from "../kinds";
import { MembersInput } from "./MembersInput";

const ROLES = ["platform-management-admin", "platform-management-view"];

/** One form field of a kind, with the server's error for it (and its parts, `errors`) beside it. */
export function FieldInput(props: {
  field: FieldDef;
  value: unknown;
  error?: string;
  errors?: Map<string, string>;
  onChange: (v: unknown) => void;
}) {
  const id = useId();
  const { field, value, error } = props;
  const errId = `${id}-err`;
  const described = error ? errId : undefined;
  let input: React.ReactNode;
  switch (field.type) {
    case "textarea":
      input = (
        <textarea
          id={id}
          aria-describedby={described}
          aria-invalid={!!error}
          value={String(value ?? "")}
          onChange={(e) => props.onChange(e.target.value)}
        />
      );
      break;
    case "bool":
      input = (
        <input id={id} type="checkbox" checked={value === true} onChange={(e) => props.onChange(e.target.checked)} />
      );
      break;
    case "number":
      input = (
        <input
          id={id}
          type="number"
          aria-describedby={described}
          value={value === undefined ? "" : String(value)}
          onChange={(e) => props.onChange(e.target.value === "" ? undefined : Number(e.target.value))}
        />
      );
      break;
    case "list":
      input = (
        <input
          id={id}
          aria-describedby={described}
          aria-invalid={!!error}
          value={((value as string[] | undefined) ?? []).join(", ")}
          onChange={(e) => props.onChange(splitList(e.target.value))}
        />
      );
      break;
    case "roles":
      return <RolesInput {...props} />;
    case "members":
      return <MembersInput {...props} errors={props.errors ?? new Map()} />;
    default:
      input = (
        <input
          id={id}
          aria-describedby={described}
          aria-invalid={!!error}
          value={String(value ?? "")}
          onChange={(e) => props.onChange(e.target.value)}
        />
      );
  }
  return (
    <div className="field">
      <label htmlFor={id}>{field.label}</label>
      {input}
      {field.help && <span className="hint">{field.help}</span>}
      {error && (
        <p className="field-error" id={errId}>
          {error}
        </p>
      )}
    </div>
  );
}

function splitList(s: string): string[] {
  return s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
}

function RolesInput(props: { field: FieldDef; value: unknown; error?: string; onChange: (v: unknown) => void }) {
  const roles = ((props.value as Array<{ name: string }> | undefined) ?? []).map((r) => r.name);
  return (
    <fieldset className="field">
      <legend>{props.field.label}</legend>
      {ROLES.map((r) => (
        <label key={r} className="check">
          <input
            type="checkbox"
            checked={roles.includes(r)}
            onChange={(e) =>
              props.onChange(
                (e.target.checked ? [...roles, r] : roles.filter((x) => x !== r)).map((name) => ({ name })),
              )
            }
          />
          {r}
        </label>
      ))}
      {props.error && <p className="field-error">{props.error}</p>}
    </fieldset>
  );
}
