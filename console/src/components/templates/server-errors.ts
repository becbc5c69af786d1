import { ApiError, describeError } from "../../api/client";

/** A refused create split for the form: errors by field path, each beside its field, and a line for the rest. */
export interface FormErrors {
  fields: Map<string, string>;
  /** Parameter errors by parameter name (`spec.parameters.<name>`). */
  parameters: Map<string, string>;
  summary: string;
}

export const NO_ERRORS: FormErrors = { fields: new Map(), parameters: new Map(), summary: "" };

const PARAMETER = "spec.parameters.";

/**
 * The server's answer to a create, said where it belongs: `shown` are the field paths the form
 * has and `parameterNames` the parameters it shows; anything else stays in the summary,
 * so no refusal goes unsaid.
 */
export function formErrors(err: unknown, shown: readonly string[], parameterNames: readonly string[]): FormErrors {
  if (!(err instanceof ApiError)) return { ...NO_ERRORS, summary: describeError(err) };
  const fields = new Map<string, string>();
  const parameters = new Map<string, string>();
  const elsewhere: string[] = [];
  for (const [field, message] of err.fieldErrors()) {
    const parameter = field.startsWith(PARAMETER) ? field.slice(PARAMETER.length) : undefined;
    if (parameter !== undefined && parameterNames.includes(parameter)) parameters.set(parameter, message);
    else if (shown.includes(field)) fields.set(field, message);
    else elsewhere.push(`${field}: ${message}`);
  }
  const told = fields.size + parameters.size;
  const summary =
    told === 0 ? describeError(err) : [`Not created: see the values marked below.`, ...elsewhere].join(" ");
  return { fields, parameters, summary };
}
