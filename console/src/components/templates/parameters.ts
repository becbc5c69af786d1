/** A template's parameter as VirtualClusterTemplate and SpaceTemplate declare it. */
export interface ParameterDecl {
  name: string;
  type?: "string" | "number" | "boolean";
  default?: string;
  options?: string[];
  required?: boolean;
  description?: string;
  label?: string;
}

/** A template version as VirtualClusterTemplate declares it. */
export interface TemplateVersion {
  version: string;
  parameters?: ParameterDecl[];
}

/** A number as the server reads a parameter's value: "3", "-2", "0.5". */
const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * What the server would refuse, said before the form is sent: a required value missing, a
 * number that is not one, a value outside the options. The server checks again (it decides);
 * this only saves a round trip and says it beside the field.
 */
export function parameterErrors(decls: readonly ParameterDecl[], values: Record<string, string>): Map<string, string> {
  const errors = new Map<string, string>();
  for (const p of decls) {
    const value = values[p.name] ?? "";
    if (value === "") {
      if (p.required && p.default === undefined) errors.set(p.name, "Required: this template needs a value.");
      continue;
    }
    if (p.type === "number" && !NUMBER.test(value)) {
      errors.set(p.name, `Write a number, such as 3 ("${value}" is not one).`);
    } else if (p.type === "boolean" && value !== "true" && value !== "false") {
      errors.set(p.name, "Choose true or false.");
    } else if (p.options && p.options.length > 0 && !p.options.includes(value)) {
      errors.set(p.name, `Choose one of: ${p.options.join(", ")}.`);
    }
  }
  return errors;
}

/** The values to send: only those typed (an empty field takes the template's default on the server). */
export function parametersToSend(values: Record<string, string>): Record<string, string> | undefined {
  const typed = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ""));
  return Object.keys(typed).length > 0 ? typed : undefined;
}

/** `1.10` after `1.9`: dotted whole numbers compared part by part (an optional leading `v`), as the server orders them. */
function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.replace(/^v/, "").split(".").map(Number);
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

/** The version an instance gets for `wanted` (empty: the newest), as the server picks it. */
export function versionFor(versions: readonly TemplateVersion[], wanted: string): TemplateVersion | undefined {
  if (wanted && wanted !== "latest") return versions.find((v) => v.version === wanted);
  return [...versions].sort((a, b) => compareVersions(b.version, a.version))[0];
}
