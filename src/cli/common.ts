import type { Command } from "commander";
import { ApiClient, GROUP_API } from "./api-client.js";
import { requireLogin } from "./config.js";
import { type OutputFormat, parseOutput } from "./output.js";

/** A client for the stored login. */
export function loggedInClient(): ApiClient {
  return new ApiClient(requireLogin());
}

export function addOutputOption(cmd: Command): Command {
  return cmd.option("-o, --output <format>", "output format: table, json or yaml", "table");
}

export function outputOf(opts: { output?: string }): OutputFormat {
  return parseOutput(opts.output);
}

/** `{api}/plural[/name]` or `{api}/namespaces/ns/plural[/name]`. */
export function apiPath(plural: string, name?: string, namespace?: string): string {
  const base = namespace
    ? `${GROUP_API}/namespaces/${encodeURIComponent(namespace)}/${plural}`
    : `${GROUP_API}/${plural}`;
  return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
}

export const PLATFORM_NAMESPACE = "platform";
export const projectNamespace = (project: string) => `p-${project}`;

/** Collects a repeatable option into an array. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The parent command of a verb (`get`, `create`, `delete`…), shared by the files that add nouns to it. */
export function verbCommand(program: Command, verb: string, description: string): Command {
  const existing = program.commands.find((c) => c.name() === verb);
  if (existing) return existing;
  return program.command(verb).description(description);
}
