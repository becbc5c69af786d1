import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { parse } from "./lazy-yaml.js";

/**
 * `platform start --config FILE`: a YAML file whose keys are the flags without `--`
 * (`listen: 127.0.0.1:8443`), with the `--oidc-*` flags also in an `oidc:` section
 * (`oidc: {issuer-url: …}`). Lists may be YAML lists. Flags given on the command line win.
 */
export function applyServerConfigFile(command: Command, file: string): void {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`cannot read --config ${file}: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return;
  if (typeof doc !== "object" || Array.isArray(doc)) throw new Error(`--config ${file}: expected a mapping of flags`);
  const byFlag = new Map(command.options.map((o) => [o.long?.replace(/^--/, "") ?? "", o.attributeName()]));
  byFlag.delete("config");
  for (const [flag, value] of flatten(doc as Record<string, unknown>, file)) {
    const attribute = byFlag.get(flag);
    if (!attribute)
      throw new Error(`--config ${file}: unknown key "${flag}" (keys are the flags of \`platform start\`)`);
    const source = command.getOptionValueSource(attribute);
    if (source === "cli" || source === "env") continue;
    command.setOptionValueWithSource(attribute, valueText(value, flag, file), "config");
  }
}

/**
 * A switch's value: given on the command line it is `true`; from the file, where every value
 * arrives as text, `true` or `false`.
 */
export function switchValue(value: string | boolean | undefined, flag: string): boolean {
  if (value === undefined || value === false || value === "false") return false;
  if (value === true || value === "true") return true;
  throw new Error(`${flag} takes no value (in --config: true or false), got "${value}"`);
}

function flatten(doc: Record<string, unknown>, file: string): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(doc)) {
    if (key === "oidc" && value && typeof value === "object" && !Array.isArray(value)) {
      for (const [sub, v] of Object.entries(value)) out.push([`oidc-${sub}`, v]);
    } else if (key === "oidc") {
      throw new Error(`--config ${file}: "oidc" must be a mapping`);
    } else {
      out.push([key, value]);
    }
  }
  return out;
}

function valueText(value: unknown, flag: string, file: string): string {
  if (Array.isArray(value)) return value.map((v) => valueText(v, flag, file)).join(",");
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return String(value);
  throw new Error(`--config ${file}: "${flag}" must be a string, number or list`);
}
