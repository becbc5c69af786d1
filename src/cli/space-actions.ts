import type { Command } from "commander";
import { GROUP_API, type Json } from "./api-client.js";
import { addOutputOption, apiPath, loggedInClient, outputOf, projectNamespace, verbCommand } from "./common.js";
import { CliError } from "./errors.js";
import { printJsonOrYaml, withSpinner } from "./output.js";
import { requireUsable } from "./use-access.js";
import { writeGatewayContext } from "./use-cluster.js";

const APIV = "management.platform/v1";

/** `platform use space`, `platform import space` and `platform move space` (docs/spaces.md). */
export function registerSpaceActionCommands(program: Command): void {
  registerUseSpace(program);
  registerImportSpace(program);
  registerMoveSpace(program);
}

function registerUseSpace(program: Command): void {
  verbCommand(program, "use", "Point kubectl at something")
    .command("space <name>")
    .description(
      "Add a kubectl context for a space through the platform's gateway, with the space's namespace as its default, and make it current",
    )
    .requiredOption("-p, --project <project>", "the project of the space")
    .option(
      "--context-name <name>",
      "name of the context (default: platform_<project>_space_<name>@HOST:PORT of the login's server)",
    )
    .option("--no-switch", "add the context without making it current")
    .addHelpText("after", "\nExamples:\n  platform use space dev --project web && kubectl get pods")
    .action(useSpace);
}

async function useSpace(name: string, opts: { project: string; contextName?: string; switch: boolean }) {
  const client = loggedInClient();
  const namespace = projectNamespace(opts.project);
  await requireUsable(client, {
    resource: "spaceinstances",
    name,
    namespace,
    noun: "space",
    scope: `in project ${opts.project}`,
  });
  const path = `/kubernetes/project/${encodeURIComponent(opts.project)}/space/${encodeURIComponent(name)}`;
  const spaceNamespace = await namespaceOfSpace(client, name, namespace);
  writeGatewayContext(`platform_${opts.project}_space_${name}`, opts.contextName, path, opts.switch, spaceNamespace);
}

/**
 * The space's namespace on its cluster: its spec's, when the caller may read the space; else its
 * name, the namespace a space gets unless it names another.
 */
async function namespaceOfSpace(client: ReturnType<typeof loggedInClient>, name: string, namespace: string) {
  try {
    const space: Json = await client.get(apiPath("spaceinstances", name, namespace));
    return (space?.spec?.clusterRef?.namespace as string | undefined) || name;
  } catch (err) {
    if (err instanceof CliError && err.status === 403) return name;
    throw err;
  }
}

function registerImportSpace(program: Command): void {
  addOutputOption(
    verbCommand(program, "import", "Import an object")
      .command("space")
      .description("Import a namespace of a connected cluster into a project as a space (the namespace is kept)")
      .argument("<namespace>", "the namespace on the connected cluster")
      .requiredOption("--cluster <cluster>", "connected cluster it is on")
      .requiredOption("--project <project>", "project to import it into")
      .option("--name <name>", "name of the new space instance (default: NAMESPACE)"),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  platform import space legacy-app --cluster prod --project web\n  platform import space team-a --cluster prod --project web --name a",
    )
    .action(importSpace);
}

async function importSpace(
  namespace: string,
  opts: { cluster: string; project: string; name?: string; output?: string },
): Promise<void> {
  const format = outputOf(opts);
  const result = await withSpinner(
    `importing namespace ${namespace} from cluster ${opts.cluster}`,
    loggedInClient().post(`${GROUP_API}/projects/${encodeURIComponent(opts.project)}/importspace`, {
      apiVersion: APIV,
      kind: "ProjectImportSpace",
      sourceSpace: { name: namespace, cluster: opts.cluster, ...(opts.name ? { importName: opts.name } : {}) },
    }),
  );
  if (format !== "table") printJsonOrYaml(result, format);
  else process.stdout.write(`space ${opts.name ?? namespace} imported into project ${opts.project}\n`);
}

function registerMoveSpace(program: Command): void {
  addOutputOption(
    verbCommand(program, "move", "Move an object")
      .command("space")
      .description("Move a space from one project to another; its namespace and everything in it stay")
      .argument("<name>", "space instance")
      .requiredOption("--from <project>", "project it is in now")
      .requiredOption("--to <project>", "project to move it into"),
  )
    .addHelpText("after", "\nExamples:\n  platform move space dev --from web --to shop")
    .action(moveSpace);
}

async function moveSpace(name: string, opts: { from: string; to: string; output?: string }): Promise<void> {
  const format = outputOf(opts);
  const result = await withSpinner(
    `moving space ${name} to project ${opts.to}`,
    loggedInClient().post(`${GROUP_API}/projects/${encodeURIComponent(opts.to)}/migratespaceinstance`, {
      apiVersion: APIV,
      kind: "ProjectMigrateSpaceInstance",
      sourceSpaceInstance: { name, namespace: projectNamespace(opts.from) },
    }),
  );
  if (format !== "table") printJsonOrYaml(result, format);
  else process.stdout.write(`space ${name} moved from project ${opts.from} to ${opts.to}\n`);
}
