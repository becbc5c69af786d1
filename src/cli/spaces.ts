import type { Command } from "commander";
import type { Json } from "./api-client.js";
import {
  addOutputOption,
  apiPath,
  collect,
  loggedInClient,
  outputOf,
  projectNamespace,
  verbCommand,
} from "./common.js";
import { CliError } from "./errors.js";
import { printJsonOrYaml } from "./output.js";
import { parameterValues } from "./parameter-values.js";
import {
  addUnsafeDeleteOption,
  deletedMessage,
  deleteWithOptions,
  type UnsafeDeleteOpts,
} from "./unsafe-delete-flag.js";

interface CreateSpaceOpts {
  project: string;
  cluster: string;
  namespace?: string;
  template?: string;
  set?: string[];
  ownerTeam?: string;
  output?: string;
}

/** The SpaceInstance `create space` sends; without an owner the server makes its creator the owner. */
export function spaceBody(name: string, opts: CreateSpaceOpts): Json {
  const parameters = parameterValues(opts.set);
  if (Object.keys(parameters).length > 0 && !opts.template) {
    throw new CliError("--set gives a template's parameters: name the template with --template", 2);
  }
  const spec: Json = {
    clusterRef: { cluster: opts.cluster, ...(opts.namespace ? { namespace: opts.namespace } : {}) },
  };
  if (opts.template) spec.templateRef = { name: opts.template };
  if (Object.keys(parameters).length > 0) spec.parameters = parameters;
  if (opts.ownerTeam) spec.owner = { team: opts.ownerTeam };
  return {
    apiVersion: "management.platform/v1",
    kind: "SpaceInstance",
    metadata: { name, namespace: projectNamespace(opts.project) },
    spec,
  };
}

export function registerSpaceCommands(program: Command): void {
  addOutputOption(
    verbCommand(program, "create", "Create an object")
      .command("space")
      .description("Create a space: a namespace on a connected cluster that belongs to a project")
      .argument("<name>", "name of the space")
      .requiredOption("--project <project>", "project it belongs to")
      .requiredOption(
        "--cluster <cluster>",
        "connected cluster its namespace is on (one of the project's allowed clusters)",
      )
      .option("--namespace <namespace>", "the namespace's name on the cluster (default: NAME)")
      .option("--template <template>", "SpaceTemplate to make it from")
      .option("--set <key=value>", "a template parameter's value; repeat for each", collect)
      .option("--owner-team <team>", "a team that owns it (default: you)"),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  platform create space web-dev --project web --cluster prod\n  platform create space web-dev --project web --cluster prod --template small --set pods=20 --owner-team web",
    )
    .action(async (name: string, opts: CreateSpaceOpts) => {
      const format = outputOf(opts);
      const body = spaceBody(name, opts);
      const result = await loggedInClient().post(
        apiPath("spaceinstances", undefined, projectNamespace(opts.project)),
        body,
      );
      if (format !== "table") printJsonOrYaml(result, format);
      else process.stdout.write(`space ${name} created in project ${opts.project}\n`);
    });

  addUnsafeDeleteOption(
    verbCommand(program, "delete", "Delete an object")
      .command("space")
      .description("Delete a space (the platform removes its namespace from the cluster first)")
      .argument("<name>", "space")
      .requiredOption("--project <project>", "its project"),
  )
    .addHelpText("after", "\nExamples:\n  platform delete space web-dev --project web")
    .action(async (name: string, opts: { project: string } & UnsafeDeleteOpts) => {
      await deleteWithOptions(loggedInClient(), apiPath("spaceinstances", name, projectNamespace(opts.project)), opts);
      process.stdout.write(deletedMessage(`space ${name} in project ${opts.project}`, opts));
    });
}
