import { CliError } from "./errors.js";

/**
 * `--set key=value`, repeated, into a template's parameter values. Values stay strings: the
 * server checks each against the parameter's type and options and names the one that does not fit.
 */
export function parameterValues(specs: string[] = []): Record<string, string> {
  const values: Record<string, string> = {};
  for (const spec of specs) {
    const eq = spec.indexOf("=");
    if (eq <= 0) throw new CliError(`--set must be KEY=VALUE, got "${spec}"`, 2);
    values[spec.slice(0, eq)] = spec.slice(eq + 1);
  }
  return values;
}
