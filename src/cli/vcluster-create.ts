import type { Command } from "commander";
import { parseDuration } from "./accesskeys.js";
import type { Json } from "./api-client.js";
import { addOutputOption, apiPath, loggedInClient, outputOf, projectNamespace, verbCommand } from "./common.js";
import { waitForReady } from "./instance-wait.js";
import { printJsonOrYaml } from "./output.js";
import { registerProjectInstanceDelete } from "./project-instance-delete.js";
import { addTemplateOptions, type TemplateKind, type TemplateOpts, templateChoice } from "./template-options.js";

interface CreateOpts extends TemplateOpts {
  project: string;
  cluster?: string;
  namespace?: string;
  wait: boolean;
  timeout: string;
  output?: string;
}

const VIRTUAL_CLUSTER_TEMPLATE: TemplateKind = {
  templateHelp: "VirtualClusterTemplate to deploy (default: the project's default template)",
  versioned: true,
  serverPicksDefault: true,
};

/** The instance `create vcluster` sends: only what was asked, the server fills in the rest (the project's default template, the namespace). */
export function virtualClusterBody(name: string, opts: CreateOpts): Json {
  const spec: Json = {};
  if (opts.cluster || opts.namespace) {
    spec.clusterRef = {
      ...(opts.cluster ? { cluster: opts.cluster } : {}),
      ...(opts.namespace ? { namespace: opts.namespace } : {}),
    };
  }
  Object.assign(spec, templateChoice(opts, VIRTUAL_CLUSTER_TEMPLATE));
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
  addOutputOption(
    addTemplateOptions(create, VIRTUAL_CLUSTER_TEMPLATE)
      .option("--no-wait", "return once created, without waiting for Ready")
      .option("--timeout <duration>", "how long to wait for Ready, e.g. 90s or 10m", "5m"),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  platform create vcluster dev --project web --cluster prod\n  platform create vcluster dev --project web --cluster prod --template default --template-version 1.0.0 --set serviceType=NodePort\n  platform create vcluster ci --project web --cluster prod --no-wait",
    )
    .action(async (name: string, opts: CreateOpts) => {
      const format = outputOf(opts);
      const timeout = parseDuration(opts.timeout);
      const body = virtualClusterBody(name, opts);
      const client = loggedInClient();
      const path = apiPath("virtualclusterinstances", undefined, projectNamespace(opts.project));
      let result = await client.post(path, body);
      if (format === "table") process.stdout.write(`vcluster ${name} created in project ${opts.project}\n`);
      if (opts.wait)
        result = await waitForReady(client, `${path}/${encodeURIComponent(name)}`, `vcluster ${name}`, timeout);
      if (format !== "table") printJsonOrYaml(result, format);
    });

  registerProjectInstanceDelete(program, {
    noun: "vcluster",
    plural: "virtualclusterinstances",
    description: "Delete a virtual cluster instance (the platform removes what it deployed on the cluster)",
    argument: "virtual cluster instance",
    example: "dev",
  });
}
