import type { Command } from "commander";
import type { Json } from "./api-client.js";
import { addOutputOption, apiPath, loggedInClient, outputOf, projectNamespace, verbCommand } from "./common.js";
import { printJsonOrYaml } from "./output.js";
import { registerProjectInstanceDelete } from "./project-instance-delete.js";
import { addTemplateOptions, type TemplateKind, type TemplateOpts, templateChoice } from "./template-options.js";

interface CreateSpaceOpts extends TemplateOpts {
  project: string;
  cluster: string;
  namespace?: string;
  ownerTeam?: string;
  output?: string;
}

const SPACE_TEMPLATE: TemplateKind = {
  templateHelp: "SpaceTemplate to make it from",
  versioned: false,
  serverPicksDefault: false,
};

/** The SpaceInstance `create space` sends; without an owner the server makes its creator the owner. */
export function spaceBody(name: string, opts: CreateSpaceOpts): Json {
  const spec: Json = {
    clusterRef: { cluster: opts.cluster, ...(opts.namespace ? { namespace: opts.namespace } : {}) },
    ...templateChoice(opts, SPACE_TEMPLATE),
  };
  if (opts.ownerTeam) spec.owner = { team: opts.ownerTeam };
  return {
    apiVersion: "management.platform/v1",
    kind: "SpaceInstance",
    metadata: { name, namespace: projectNamespace(opts.project) },
    spec,
  };
}

export function registerSpaceCommands(program: Command): void {
  const create = verbCommand(program, "create", "Create an object")
    .command("space")
    .description("Create a space: a namespace on a connected cluster that belongs to a project")
    .argument("<name>", "name of the space")
    .requiredOption("--project <project>", "project it belongs to")
    .requiredOption(
      "--cluster <cluster>",
      "connected cluster its namespace is on (one of the project's allowed clusters)",
    )
    .option("--namespace <namespace>", "the namespace's name on the cluster (default: NAME)");
  addOutputOption(
    addTemplateOptions(create, SPACE_TEMPLATE).option("--owner-team <team>", "a team that owns it (default: you)"),
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

  registerProjectInstanceDelete(program, {
    noun: "space",
    plural: "spaceinstances",
    description: "Delete a space (the platform removes its namespace from the cluster first)",
    argument: "space",
    example: "web-dev",
  });
}
