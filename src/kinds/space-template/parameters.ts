import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import type { PlaceholderValue } from "./render.js";

export const SpaceParameterSchema = Type.Object(
  {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a space template placeholder, not JavaScript
    name: Type.String({ description: "Name used as ${name} in the template: letters, digits and _." }),
    description: Type.Optional(Type.String({ description: "What the parameter sets." })),
    type: Type.Optional(Type.String({ description: "string (default), number or boolean." })),
    default: Type.Optional(Type.String({ description: "Value when the instance gives none." })),
    required: Type.Optional(Type.Boolean({ description: "The instance must give a value (or the default is used)." })),
    options: Type.Optional(Type.Array(Type.String(), { description: "The only values allowed." })),
  },
  { description: "A value an instance of the template fills in." },
);

export type SpaceParameter = Static<typeof SpaceParameterSchema>;

const PARAMETER_TYPES = ["string", "number", "boolean"] as const;
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** Field errors of a template's parameter declarations. */
export function validateParameterDeclarations(params: SpaceParameter[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (params ?? []).forEach((p, i) => {
    const at = `${path}[${i}]`;
    if (!PARAMETER_NAME.test(p.name)) {
      errs.push(
        fieldError("FieldValueInvalid", `${at}.name`, "letters, digits and _, not starting with a digit", p.name),
      );
    }
    if (seen.has(p.name)) errs.push(fieldError("FieldValueDuplicate", `${at}.name`, "", p.name));
    seen.add(p.name);
    if (p.type !== undefined && !(PARAMETER_TYPES as readonly string[]).includes(p.type)) {
      errs.push(
        fieldError("FieldValueNotSupported", `${at}.type`, 'supported values: "string", "number", "boolean"', p.type),
      );
    }
    for (const [field, value] of [
      ["default", p.default],
      ...(p.options ?? []).map((o, j) => [`options[${j}]`, o] as const),
    ] as const) {
      if (value === undefined) continue;
      const problem = typeProblem(p, value);
      if (problem) errs.push(fieldError("FieldValueInvalid", `${at}.${field}`, problem, value));
    }
    if (p.default !== undefined && p.options?.length && !p.options.includes(p.default)) {
      errs.push(
        fieldError("FieldValueNotSupported", `${at}.default`, "the default must be one of the options", p.default),
      );
    }
  });
  return errs;
}

/**
 * The values of a template's parameters for one instance: its `spec.parameters`, else each
 * default, typed as declared; an optional parameter with neither is the empty string. Errors
 * name the instance's field (`spec.parameters.<name>`).
 */
export function resolveParameters(
  declared: SpaceParameter[] | undefined,
  given: Readonly<Record<string, string>> | undefined,
  path: string,
): { values: Record<string, PlaceholderValue>; errors: FieldError[] } {
  const values: Record<string, PlaceholderValue> = {};
  const errors: FieldError[] = [];
  const params = declared ?? [];
  for (const name of Object.keys(given ?? {})) {
    if (!params.some((p) => p.name === name)) {
      errors.push(
        fieldError("FieldValueNotSupported", `${path}.${name}`, "the template declares no such parameter", name),
      );
    }
  }
  for (const p of params) {
    const raw = given?.[p.name] ?? p.default;
    const at = `${path}.${p.name}`;
    if (raw === undefined) {
      if (p.required) errors.push(fieldError("FieldValueRequired", at, p.description ?? `parameter ${p.name}`));
      else values[p.name] = "";
      continue;
    }
    const problem = typeProblem(p, raw);
    if (problem) {
      errors.push(fieldError("FieldValueInvalid", at, problem, raw));
      continue;
    }
    if (p.options?.length && !p.options.includes(raw)) {
      errors.push(
        fieldError("FieldValueNotSupported", at, `supported values: ${p.options.map((o) => `"${o}"`).join(", ")}`, raw),
      );
      continue;
    }
    values[p.name] = p.type === "number" ? Number(raw) : p.type === "boolean" ? raw === "true" : raw;
  }
  return { values, errors };
}

function typeProblem(p: SpaceParameter, value: string): string | undefined {
  if (p.type === "number" && !NUMBER.test(value)) return "must be a number";
  if (p.type === "boolean" && value !== "true" && value !== "false") return 'must be "true" or "false"';
  return undefined;
}
