import type { Command } from "commander";
import { projectNamespace } from "./common.js";
import { CliError } from "./errors.js";

/**
 * Which kind of secret a `get|set secret` command works on: a SharedSecret in `--namespace`
 * (default platform), or with `--project P` the ProjectSecret in `p-P` (docs/project-secrets.md).
 */
export interface SecretTarget {
  plural: "sharedsecrets" | "projectsecrets";
  kind: "SharedSecret" | "ProjectSecret";
  namespace: string;
  /** As messages name the kind: "shared secret", "project secret". */
  noun: string;
}

export interface SecretTargetOptions {
  namespace: string;
  project?: string;
}

export function addProjectOption(cmd: Command): Command {
  return cmd.option("-p, --project <project>", "a project secret of this project instead of a shared secret");
}

/** The target the options name; both `--project` and an explicit `--namespace` is a usage error. */
export function secretTarget(opts: SecretTargetOptions, command: Command): SecretTarget {
  if (opts.project === undefined) {
    return { plural: "sharedsecrets", kind: "SharedSecret", namespace: opts.namespace, noun: "shared secret" };
  }
  if (command.getOptionValueSource("namespace") === "cli") {
    throw new CliError("--project and --namespace name different secrets: give one of them", 2);
  }
  return {
    plural: "projectsecrets",
    kind: "ProjectSecret",
    namespace: projectNamespace(opts.project),
    noun: "project secret",
  };
}
