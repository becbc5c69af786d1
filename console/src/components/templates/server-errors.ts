import { ApiError, describeError } from "../../api/client";

/** A refused create split for the form: errors by field path, each beside its field, and a line for the rest. */
export interface FormErrors {
  fields: Map<string, string>;
  /** Parameter errors by parameter name (`spec.parameters.<name>`). */
  parameters: Map<string, string>;
  summary: string;
}

export const NO_ERRORS: FormErrors = { fields: new Map(), parameters: new Map(), summary: "" };

/**
 * The server's answer to a create, said where it belongs: `shown` are the field paths the form
 * has; anything else stays in the summary, so no refusal goes unsaid.
 */
export function formErrors(err: unknown, shown: readonly string[]): FormErrors {
  if (!(err instanceof ApiError)) return { ...NO_ERRORS, summary: describeError(err) };
  const fields = new Map<string, string>();
  const parameters = new Map<string, string>();
  const elsewhere: string[] = [];
  for (const [field, message] of err.fieldErrors()) {
    if (field.startsWith("spec.parameters.")) parameters.set(field.slice("spec.parameters.".length), message);
    else if (shown.includes(field)) fields.set(field, message);
    else elsewhere.push(`${field}: ${message}`);
  }
  const told = fields.size + parameters.size;
  const summary =
    told === 0 ? describeError(err) : [`Not created: see the values marked below.`, ...elsewhere].join(" ");
  return { fields, parameters, summary };
}
