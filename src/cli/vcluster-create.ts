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

export interface CreateVirtualClusterOpts extends TemplateOpts, OwnerOpts, CreateAndWaitOpts {
  cluster?: string;
  namespace?: string;
}

/** A Failed instance is waited through: its controller may still repair it (a cluster coming back, a fixed template). */
const VIRTUAL_CLUSTER: CreatedInstanceKind = {
  noun: "vcluster",
  plural: "virtualclusterinstances",
  failedEndsWait: false,
};

const VIRTUAL_CLUSTER_TEMPLATE: TemplateKind = {
  templateHelp: "VirtualClusterTemplate to deploy (default: the project's default template)",
  versioned: true,
  serverPicksDefault: true,
};

/** The instance `create vcluster` sends: only what was asked, the server fills in the rest (the project's default template, the namespace). */
export function virtualClusterBody(name: string, opts: CreateVirtualClusterOpts): Json {
  const spec: Json = {};
  if (opts.cluster || opts.namespace) {
    spec.clusterRef = {
      ...(opts.cluster ? { cluster: opts.cluster } : {}),
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
    };
  }
  Object.assign(spec, templateChoice(opts, VIRTUAL_CLUSTER_TEMPLATE), ownerChoice(opts));
  return {
    apiVersion: "management.platform/v1",
    kind: "VirtualClusterInstance",
    metadata: { name, namespace: projectNamespace(opts.project) },
    spec,
  };
}

export function registerVirtualClusterCreateCommands(program: Command): void {
  const create = verbCommand(program, "create", "Create an object")
    .command("vcluster")
    .description("Create a virtual cluster in a project, deployed from a template, and wait until it is Ready")
    .argument("<name>", "name of the virtual cluster instance")
    .requiredOption("--project <project>", "project it belongs to")
    .option("--cluster <cluster>", "connected cluster it runs on (one of the project's allowed clusters)")
    .option("--namespace <namespace>", "its namespace on that cluster (default: p-PROJECT-v-NAME)");
  addOutputOption(addWaitOptions(addOwnerOption(addTemplateOptions(create, VIRTUAL_CLUSTER_TEMPLATE))))
    .addHelpText(
      "after",
      "\nExamples:\n  platform create vcluster dev --project web --cluster prod\n  platform create vcluster dev --project web --cluster prod --template default --template-version 1.0.0 --set serviceType=NodePort\n  platform create vcluster ci --project web --cluster prod --no-wait\n  platform create vcluster qa --project web --cluster prod --owner-team web",
    )
    .action((name: string, opts: CreateVirtualClusterOpts) =>
      createAndWait(VIRTUAL_CLUSTER, name, virtualClusterBody(name, opts), opts),
    );

  registerProjectInstanceDelete(program, {
    noun: "vcluster",
    plural: "virtualclusterinstances",
    description: "Delete a virtual cluster instance (the platform removes what it deployed on the cluster)",
    argument: "virtual cluster instance",
    example: "dev",
  });
}
