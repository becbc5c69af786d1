import type { Command } from "commander";
import type { Json } from "./api-client.js";
import { clientSettings } from "./client-settings.js";
import { apiPath, loggedInClient, projectNamespace } from "./common.js";

/** What a completion can name, and where the names are listed. */
const SOURCES: Record<string, (scope?: string) => string> = {
  clusters: () => apiPath("clusters"),
  projects: () => apiPath("projects"),
  secrets: (namespace) => apiPath("sharedsecrets", undefined, namespace || undefined),
  vclusters: (project) =>
    apiPath("virtualclusterinstances", undefined, project ? projectNamespace(project) : undefined),
};

const COMPLETABLE_KINDS = Object.keys(SOURCES);

/**
 * `platform __complete-names KIND [SCOPE]`: the names the shell completions offer (hidden). Prints
 * one name a line, and nothing at all when not logged in or the server does not answer quickly:
 * a TAB must never print an error into the command line.
 */
export function registerCompleteNamesCommand(program: Command): void {
  program
    .command("__complete-names", { hidden: true })
    .argument("<kind>", COMPLETABLE_KINDS.join(", "))
    .argument("[scope]", "namespace of secrets, project of vclusters")
    .action(async (kind: string, scope: string | undefined) => {
      const source = SOURCES[kind];
      if (!source) return;
      clientSettings.requestTimeoutMs = Math.min(clientSettings.requestTimeoutMs || 5000, 5000);
      try {
        const list: Json = await loggedInClient().get(source(scope));
        const names = ((list?.items ?? []) as Json[]).map((o) => String(o?.metadata?.name ?? "")).filter(Boolean);
        process.stdout.write(names.length ? `${[...new Set(names)].sort().join("\n")}\n` : "");
      } catch {
        // Nothing to offer.
      }
    });
}

/** Which kind a command's first argument names, by command path. */
export const NAME_ARGUMENTS: Record<string, string> = {
  "get secret": "secrets",
  "set secret": "secrets",
  "delete secret": "secrets",
  "connect vcluster": "vclusters",
  "move vcluster": "vclusters",
};

/** Which kind a flag's value names. */
export const NAME_FLAGS: Record<string, string> = {
  "--cluster": "clusters",
  "--project": "projects",
  "-p": "projects",
  "--from": "projects",
  "--to": "projects",
};
