import { type Static, Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";

/**
 * The parameters a template declares (SpaceTemplate, VirtualClusterTemplate) and the values an
 * instance gives them. Values travel as strings (the instance's `spec.parameters` is a string
 * map, as `--set key=value` on a command line gives them); each parameter's `type` says what the
 * string must spell, and a value substituted alone takes that type in the rendered object. Both
 * template kinds declare parameters with this one shape, so one console form serves both.
 */
export const PARAMETER_TYPES = ["string", "number", "boolean"] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];
export type ParameterValue = string | number | boolean;

/** A parameter name is an identifier, so `${params.<name>}` reads without quoting. */
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export const TemplateParameterSchema = Type.Object(
  {
    name: Type.String({ description: "Name (letters, digits, _): the objects refer to it as params.<name>." }),
    description: Type.Optional(Type.String({ description: "What the parameter sets." })),
    type: Type.Optional(Type.String({ description: "string (default), number or boolean." })),
    default: Type.Optional(Type.String({ description: "Value when the instance gives none, written as a string." })),
    required: Type.Optional(Type.Boolean({ description: "The instance must give a value (or the default is used)." })),
    options: Type.Optional(
      Type.Array(Type.String(), { description: "The only values allowed, written as strings; empty: any value." }),
    ),
  },
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template reference, not JavaScript
  { description: "A parameter of the template, which its objects refer to as ${params.<name>}." },
);
export type TemplateParameter = Static<typeof TemplateParameterSchema>;

/** The parameter values of an instance, by name (`spec.parameters`). */
export const ParameterValuesSchema = Type.Record(Type.String(), Type.String(), {
  description: 'Values for the template\'s parameters, by name, written as strings ("3", "true").',
});

function typeOf(p: TemplateParameter): ParameterType {
  return (p.type ?? "string") as ParameterType;
}

/** `raw` as a value of `type`, or undefined when it does not spell one. */
function parseAs(type: ParameterType, raw: string): ParameterValue | undefined {
  switch (type) {
    case "number": {
      const n = Number(raw);
      return NUMBER.test(raw) && Number.isFinite(n) ? n : undefined;
    }
    case "boolean":
      return raw === "true" ? true : raw === "false" ? false : undefined;
    default:
      return raw;
  }
}

const SPELLING: Record<ParameterType, string> = {
  string: "a string",
  number: 'a number such as "3" or "0.5"',
  boolean: '"true" or "false"',
};

/** Field errors of a version's parameter declarations (`path` is their list's field). */
export function validateParameterDeclarations(params: readonly TemplateParameter[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  params.forEach((p, i) => {
    const at = `${path}[${i}]`;
    if (!PARAMETER_NAME.test(p.name)) {
      errs.push(
        fieldError("FieldValueInvalid", `${at}.name`, "letters, digits and _, not starting with a digit", p.name),
      );
    } else if (seen.has(p.name)) {
      errs.push(fieldError("FieldValueDuplicate", `${at}.name`, "", p.name));
    }
    seen.add(p.name);
    if (p.type !== undefined && !(PARAMETER_TYPES as readonly string[]).includes(p.type)) {
      const supported = PARAMETER_TYPES.map((t) => `"${t}"`).join(", ");
      errs.push(fieldError("FieldValueNotSupported", `${at}.type`, `supported values: ${supported}`, p.type));
      return;
    }
    const type = typeOf(p);
    (p.options ?? []).forEach((o, j) => {
      if (parseAs(type, o) === undefined) {
        errs.push(fieldError("FieldValueInvalid", `${at}.options[${j}]`, `must be ${SPELLING[type]}`, o));
      }
    });
    if (p.default !== undefined) {
      errs.push(...valueErrors(p, p.default, `${at}.default`));
    } else if (type !== "string" && p.required !== true) {
      // A string left out renders as ""; a number or boolean has no such value.
      errs.push(
        fieldError("FieldValueRequired", `${at}.default`, `a ${type} parameter needs a default unless it is required`),
      );
    }
  });
  return errs;
}

function valueErrors(p: TemplateParameter, raw: string, field: string): FieldError[] {
  const type = typeOf(p);
  const value = parseAs(type, raw);
  if (value === undefined) return [fieldError("FieldValueInvalid", field, `must be ${SPELLING[type]}`, raw)];
  const options = p.options ?? [];
  if (options.length > 0 && !options.some((o) => parseAs(type, o) === value)) {
    return [
      fieldError(
        "FieldValueNotSupported",
        field,
        `supported values: ${options.map((o) => JSON.stringify(o)).join(", ")}`,
        raw,
      ),
    ];
  }
  return [];
}

/**
 * The typed value of every declared parameter from what an instance gives (`given`, reported
 * under `path`, e.g. `spec.parameters`): the given value, else the default, else "" for an
 * optional string. Every problem is a field error naming the parameter; a value is data and is
 * never read as anything else.
 */
export function resolveParameters(
  params: readonly TemplateParameter[],
  given: Readonly<Record<string, string>> | undefined,
  path: string,
): { values: Map<string, ParameterValue>; errors: FieldError[] } {
  const values = new Map<string, ParameterValue>();
  const errors: FieldError[] = [];
  const declared = new Map(params.map((p) => [p.name, p]));
  for (const name of Object.keys(given ?? {})) {
    if (declared.has(name)) continue;
    const known = params.length ? `its parameters: ${params.map((p) => p.name).join(", ")}` : "it has none";
    errors.push(
      fieldError("FieldValueNotSupported", `${path}.${name}`, `the template has no such parameter (${known})`, name),
    );
  }
  for (const p of params) {
    const field = `${path}.${p.name}`;
    const raw = given && Object.hasOwn(given, p.name) ? given[p.name] : p.default;
    if (raw === undefined) {
      if (p.required) errors.push(fieldError("FieldValueRequired", field, describe(p)));
      else values.set(p.name, "");
      continue;
    }
    const errs = valueErrors(p, raw, field);
    if (errs.length) errors.push(...errs);
    else values.set(p.name, parseAs(typeOf(p), raw) as ParameterValue);
  }
  return { values, errors };
}

function describe(p: TemplateParameter): string {
  const what = p.description ? ` (${p.description})` : "";
  return `the template requires parameter "${p.name}"${what}, ${SPELLING[typeOf(p)]}`;
}
