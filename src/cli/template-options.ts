import type { Command } from "commander";
import { collect } from "./common.js";
import { CliError, USAGE_EXIT_CODE } from "./errors.js";

/**
 * The options of the commands that create an instance from a template (`create vcluster`,
 * `create space`): `--template`, `--template-version` where the template kind has versions, and
 * `--set key=value`, read into the instance's `spec.templateRef` and `spec.parameters`.
 */
export interface TemplateOpts {
  template?: string;
  templateVersion?: string;
  set?: string[];
}

/** How a command's template options read: what its template kind is called and what it does without one. */
export interface TemplateKind {
  /** The help of `--template`: which kind of template, and what happens without it. */
  templateHelp: string;
  /** The kind has versions (VirtualClusterTemplate), so `--template-version` pins one. */
  versioned: boolean;
  /**
   * The server picks a template when none is named (a project's default virtual cluster
   * template), so `--set` alone fills in that one's parameters; otherwise `--set` needs `--template`.
   */
  serverPicksDefault: boolean;
}

/** Adds `--template`, `--template-version` (when the kind has versions) and `--set` to `command`. */
export function addTemplateOptions(command: Command, kind: TemplateKind): Command {
  command.option("--template <template>", kind.templateHelp);
  if (kind.versioned) {
    // Not --version: the program's own --version is read wherever it stands on the command line.
    command.option("--template-version <version>", "template version to pin (default: follow the newest)");
  }
  return command.option("--set <key=value>", "a template parameter's value; repeat for each", collect);
}

/** What the options ask of the instance's spec; a field is there only when asked for. */
export interface TemplateChoice {
  templateRef?: { name: string; version?: string };
  parameters?: Record<string, string>;
}

/**
 * The instance's `templateRef` and `parameters` from the options. What cannot be sent as asked is
 * a usage error (exit code 2) before anything is sent: `--set` without `=`, `--set` with no
 * template to fill in, `--template-version` without `--template` (the server would fill in the
 * project's default template without that version). Whether a parameter exists and its value fits
 * its type is the server's to say: it knows the template the instance gets, and its refusal names
 * the parameter (`spec.parameters.NAME`).
 */
export function templateChoice(opts: TemplateOpts, kind: TemplateKind): TemplateChoice {
  const parameters = parameterValues(opts.set);
  const given = Object.keys(parameters).length > 0;
  if (!opts.template) {
    if (opts.templateVersion) {
      throw new CliError(
        "--template-version pins a version of a template: name the template with --template",
        USAGE_EXIT_CODE,
      );
    }
    if (given && !kind.serverPicksDefault) {
      throw new CliError("--set gives a template's parameters: name the template with --template", USAGE_EXIT_CODE);
    }
  }
  return {
    ...(opts.template
      ? { templateRef: { name: opts.template, ...(opts.templateVersion ? { version: opts.templateVersion } : {}) } }
      : {}),
    ...(given ? { parameters } : {}),
  };
}

/**
 * `--set key=value`, repeated, into a template's parameter values; the last value of a key wins.
 * Values stay strings, as the instance's `spec.parameters` holds them.
 */
function parameterValues(specs: string[] = []): Record<string, string> {
  const values: Record<string, string> = {};
  for (const spec of specs) {
    const eq = spec.indexOf("=");
    if (eq <= 0) throw new CliError(`--set must be KEY=VALUE, got "${spec}"`, USAGE_EXIT_CODE);
    values[spec.slice(0, eq)] = spec.slice(eq + 1);
  }
  return values;
}
