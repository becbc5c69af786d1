import type { Command } from "commander";
import { type Json, TABLE_ACCEPT } from "./api-client.js";
import { addOutputOption, apiPath, loggedInClient, outputOf, projectNamespace, verbCommand } from "./common.js";
import { CliError } from "./errors.js";
import { printJsonOrYaml, printServerTable } from "./output.js";
import { mayUse } from "./use-access.js";

interface ListKind {
  noun: string;
  aliases: string[];
  plural: string;
  what: string;
  /** Columns of the server's Table shown beyond its default ones (priority 0), by name. */
  alsoShow?: string[];
  /** Namespaced kinds list across all namespaces unless narrowed; the option narrowing them. */
  narrow?: {
    flags: string;
    description: string;
    namespace: (value: string) => string;
    column: string;
    label: (ns: string) => string;
  };
  /** With `--project P`, this kind in `p-P` is listed instead (secrets: the project's secrets). */
  inProject?: ListKind;
}

/** The objects of a project live in its namespace p-PROJECT: listed across projects, or one. */
const BY_PROJECT: ListKind["narrow"] = {
  flags: "-p, --project <project>",
  description: "only this project (default: all projects)",
  namespace: projectNamespace,
  column: "Project",
  label: (ns) => ns.replace(/^p-/, ""),
};

const PROJECT_SECRETS: ListKind = {
  noun: "secrets",
  aliases: [],
  plural: "projectsecrets",
  what: "project secrets",
  narrow: {
    flags: "-p, --project <project>",
    description: "the project",
    namespace: projectNamespace,
    column: "Project",
    label: (ns) => ns.replace(/^p-/, ""),
  },
};

const KINDS: ListKind[] = [
  { noun: "users", aliases: ["user"], plural: "users", what: "users" },
  { noun: "teams", aliases: ["team"], plural: "teams", what: "teams" },
  { noun: "clusters", aliases: ["cluster"], plural: "clusters", what: "connected clusters" },
  { noun: "projects", aliases: ["project"], plural: "projects", what: "projects" },
  {
    noun: "secrets",
    aliases: ["secret", "sharedsecrets"],
    plural: "sharedsecrets",
    what: "shared secrets",
    narrow: {
      flags: "-n, --namespace <namespace>",
      description: "only this namespace (default: all namespaces)",
      namespace: (v) => v,
      column: "Namespace",
      label: (ns) => ns,
    },
    inProject: PROJECT_SECRETS,
  },
  {
    noun: "vclusters",
    aliases: ["vcluster", "virtualclusterinstances"],
    plural: "virtualclusterinstances",
    what: "virtual cluster instances",
    alsoShow: ["Template"],
    narrow: BY_PROJECT,
  },
  {
    noun: "spaces",
    aliases: ["space", "spaceinstances"],
    plural: "spaceinstances",
    what: "spaces",
    alsoShow: ["Template"],
    narrow: BY_PROJECT,
  },
  {
    noun: "templates",
    aliases: ["template", "virtualclustertemplates"],
    plural: "virtualclustertemplates",
    what: "virtual cluster templates",
    alsoShow: ["Versions"],
  },
  { noun: "spacetemplates", aliases: ["spacetemplate"], plural: "spacetemplates", what: "space templates" },
];

export function registerListCommand(program: Command): void {
  const list = verbCommand(program, "list", "List objects");
  list.addHelpText(
    "after",
    `
Examples:
  platform list users
  platform list secrets -n platform
  platform list secrets --project web
  platform list vclusters --project web -o yaml`,
  );
  for (const listed of KINDS) {
    const cmd = list.command(listed.noun).aliases(listed.aliases).description(`List ${listed.what} you may see`);
    if (listed.narrow) cmd.option(listed.narrow.flags, listed.narrow.description);
    if (listed.inProject) cmd.option("-p, --project <project>", `list the ${listed.inProject.what} of this project`);
    addOutputOption(cmd)
      .addHelpText("after", `\nExamples:\n  platform list ${listed.noun}\n  platform list ${listed.noun} -o json`)
      .action(async (opts: Record<string, string | undefined>) => {
        const format = outputOf(opts);
        const k = listed.inProject && opts.project !== undefined ? listed.inProject : listed;
        if (k !== listed && opts.namespace !== undefined) {
          throw new CliError(`--project and --namespace name different ${listed.noun}: give one of them`, 2);
        }
        const narrowed = k.narrow ? (opts.namespace ?? opts.project) : undefined;
        const namespace = narrowed && k.narrow ? k.narrow.namespace(narrowed) : undefined;
        const result = await loggedInClient().get(apiPath(k.plural, undefined, namespace), {
          accept: format === "table" ? TABLE_ACCEPT : "application/json",
        });
        if (format !== "table") {
          printJsonOrYaml(result, format);
          return;
        }
        const empty = `No ${k.what} found${namespace ? ` in ${narrowed}` : ""}.`;
        if (k.plural === "clusters") await addUseColumn(result);
        const narrow = k.narrow;
        printServerTable(
          result,
          empty,
          k.alsoShow ?? [],
          narrow && !namespace
            ? { header: narrow.column, cell: (row) => narrow.label(String(row.object?.metadata?.namespace ?? "")) }
            : undefined,
        );
      });
  }
}

/** The last column of `list clusters`, Use: whether the caller may connect to each (through the gateway). */
async function addUseColumn(table: Json): Promise<void> {
  const client = loggedInClient();
  const rows = (table?.rows ?? []) as Json[];
  const usable = await Promise.all(rows.map((r) => mayUse(client, "clusters", String(r.object?.metadata?.name ?? ""))));
  table.columnDefinitions = [...(table?.columnDefinitions ?? []), { name: "Use", type: "string" }];
  rows.forEach((r, i) => {
    r.cells = [...(r.cells ?? []), usable[i] ? "yes" : "no"];
  });
}
