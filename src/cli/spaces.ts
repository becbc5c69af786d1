import type { Command } from "commander";
import type { Json } from "./api-client.js";
import { addOutputOption, projectNamespace, verbCommand } from "./common.js";
import { addOwnerOption, type OwnerOpts, ownerChoice } from "./owner-option.js";
import {
  addWaitOptions,
  type CreateAndWaitOpts,
  type CreatedInstanceKind,
  createAndWait,
} from "./project-instance-create.js";
import { registerProjectInstanceDelete } from "./project-instance-delete.js";
import { addTemplateOptions, type TemplateKind, type TemplateOpts, templateChoice } from "./template-options.js";

interface CreateSpaceOpts extends TemplateOpts, OwnerOpts, CreateAndWaitOpts {
  cluster: string;
  namespace?: string;
}

/** A Failed space ends the wait: its phase says the platform cannot fix it by trying again (docs/spaces.md). */
const SPACE: CreatedInstanceKind = { noun: "space", plural: "spaceinstances", failedEndsWait: true };

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
    ...ownerChoice(opts),
  };
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
    .description(
      "Create a space: a namespace on a connected cluster that belongs to a project, and wait until it is Ready",
    )
    .argument("<name>", "name of the space")
    .requiredOption("--project <project>", "project it belongs to")
    .requiredOption(
      "--cluster <cluster>",
      "connected cluster its namespace is on (one of the project's allowed clusters)",
    )
    .option("--namespace <namespace>", "the namespace's name on the cluster (default: NAME)");
  addOutputOption(addWaitOptions(addOwnerOption(addTemplateOptions(create, SPACE_TEMPLATE))))
    .addHelpText(
      "after",
      "\nExamples:\n  platform create space web-dev --project web --cluster prod\n  platform create space web-dev --project web --cluster prod --template small --set pods=20 --owner-team web\n  platform create space web-ci --project web --cluster prod --no-wait",
    )
    .action((name: string, opts: CreateSpaceOpts) => createAndWait(SPACE, name, spaceBody(name, opts), opts));

  registerProjectInstanceDelete(program, {
    noun: "space",
    plural: "spaceinstances",
    description: "Delete a space (the platform removes its namespace from the cluster first)",
    argument: "space",
    example: "web-dev",
  });
}
