import type { Command } from "commander";
import { perServerName } from "../support/kubeconfig-names.js";
import { parseDuration } from "./accesskeys.js";
import { type ApiClient, GROUP_API, type Json } from "./api-client.js";
import { addOutputOption, apiPath, loggedInClient, outputOf, projectNamespace, verbCommand } from "./common.js";
import { CliError } from "./errors.js";
import { currentEntries, type KubeConfig, kubeconfigPath, mergeContext } from "./kubeconfig.js";
import { parse } from "./lazy-yaml.js";
import { printJsonOrYaml, withSpinner } from "./output.js";

const APIV = "management.platform/v1";

export function registerVirtualClusterCommands(program: Command): void {
  registerImportVirtualCluster(program);
  registerMoveVirtualCluster(program);
  registerConnectVirtualCluster(program);
}

/** The options of `platform import vcluster`, as commander parses them. */
interface ImportOptions {
  cluster: string;
  namespace: string;
  project: string;
  importName?: string;
  output?: string;
}

function registerImportVirtualCluster(program: Command): void {
  const importCmd = verbCommand(program, "import", "Import an object");
  addOutputOption(
    importCmd
      .command("vcluster")
      .description("Import a virtual cluster running on a connected cluster into a project")
      .argument("<name>", "name of the virtual cluster on the connected cluster")
      .requiredOption("--cluster <cluster>", "connected cluster it runs on")
      .requiredOption("--namespace <namespace>", "its namespace on that cluster")
      .requiredOption("--project <project>", "project to import it into")
      .option("--import-name <name>", "name of the new virtual cluster instance (default: NAME)"),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  platform import vcluster dev --cluster prod --namespace vcluster-dev --project web\n  platform import vcluster dev --cluster prod --namespace team-a --project web --import-name dev-a",
    )
    .action(importVirtualCluster);
}

async function importVirtualCluster(name: string, opts: ImportOptions): Promise<void> {
  const format = outputOf(opts);
  const result = await withSpinner(
    `importing ${name} from cluster ${opts.cluster}`,
    loggedInClient().post(`${GROUP_API}/projects/${encodeURIComponent(opts.project)}/importvirtualcluster`, {
      apiVersion: APIV,
      kind: "ProjectImportVirtualCluster",
      metadata: { name: opts.project },
      sourceVirtualCluster: {
        name,
        namespace: opts.namespace,
        cluster: opts.cluster,
        ...(opts.importName ? { importName: opts.importName } : {}),
      },
    }),
  );
  if (format !== "table") printJsonOrYaml(result, format);
  else process.stdout.write(`vcluster ${opts.importName ?? name} imported into project ${opts.project}\n`);
}

function registerMoveVirtualCluster(program: Command): void {
  const move = verbCommand(program, "move", "Move an object");
  addOutputOption(
    move
      .command("vcluster")
      .description("Move a virtual cluster instance from one project to another (same name, new uid)")
      .argument("<name>", "virtual cluster instance")
      .requiredOption("--from <project>", "project it is in now")
      .requiredOption("--to <project>", "project to move it into"),
  )
    .addHelpText("after", "\nExamples:\n  platform move vcluster dev --from web --to shop")
    .action(moveVirtualCluster);
}

async function moveVirtualCluster(name: string, opts: { from: string; to: string; output?: string }): Promise<void> {
  const format = outputOf(opts);
  const result = await withSpinner(
    `moving ${name} to project ${opts.to}`,
    loggedInClient().post(`${GROUP_API}/projects/${encodeURIComponent(opts.to)}/migratevirtualclusterinstance`, {
      apiVersion: APIV,
      kind: "ProjectMigrateVirtualClusterInstance",
      metadata: { name: opts.to },
      sourceVirtualClusterInstance: { name, namespace: projectNamespace(opts.from) },
    }),
  );
  if (format !== "table") printJsonOrYaml(result, format);
  else process.stdout.write(`vcluster ${name} moved from project ${opts.from} to ${opts.to}\n`);
}

/** The options of `platform connect vcluster`, as commander parses them. */
interface ConnectOptions {
  project?: string;
  certificateTtl?: string;
  print?: boolean;
  contextName?: string;
  switch: boolean;
}

function registerConnectVirtualCluster(program: Command): void {
  const connect = verbCommand(program, "connect", "Connect to an object");
  connect
    .command("vcluster")
    .description(
      "Fetch a kube config for a virtual cluster (a client certificate for you) and merge it into ~/.kube/config (or the first file of $KUBECONFIG) as context platform-PROJECT-NAME@HOST:PORT (of the login's server), made current; --print writes it to standard output instead",
    )
    .argument("<name>", "virtual cluster instance")
    .option("--project <project>", "its project (without: looked up across projects)")
    .option(
      "--certificate-ttl <duration>",
      "validity of the client certificate, e.g. 1h or 30d (server default: 1 day; 0: one year)",
    )
    .option("--print", "print the kube config instead of merging it")
    .option("--context-name <name>", "name of the kubectl context (default platform-PROJECT-NAME@HOST:PORT)")
    .option("--no-switch", "add the context without making it current")
    .addHelpText(
      "after",
      "\nExamples:\n  platform connect vcluster dev --project web && kubectl get namespaces\n  platform connect vcluster dev --project web --certificate-ttl 1h --print > dev.kubeconfig",
    )
    .action(connectVirtualCluster);
}

async function connectVirtualCluster(name: string, opts: ConnectOptions): Promise<void> {
  const ttl = opts.certificateTtl === undefined ? undefined : parseDuration(opts.certificateTtl);
  const client = loggedInClient();
  const result = await withSpinner(
    `fetching a kube config for ${name}`,
    requestKubeconfig(client, name, opts.project, ttl),
  );
  const text: unknown = result?.status?.kubeConfig;
  if (typeof text !== "string" || !text) throw new CliError("the server's answer has no status.kubeConfig");
  if (opts.print) {
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    return;
  }
  const project = opts.project ?? String(result?.metadata?.namespace ?? "").replace(/^p-/, "");
  const context =
    opts.contextName ?? perServerName(`platform-${project ? `${project}-` : ""}${name}`, client.conn.server);
  const { cluster, user } = currentEntries(parse(text) as KubeConfig);
  const file = kubeconfigPath();
  mergeContext(file, context, cluster, user, opts.switch);
  process.stdout.write(
    `Context ${context} added to ${file}${opts.switch ? " and made current" : ""}. Try: kubectl --context ${context} get namespaces\n`,
  );
}

/**
 * The kube config subresource: created in the given project (with the certificate's lifetime in
 * the body), or read by name alone, which the server looks up across projects.
 */
function requestKubeconfig(
  client: ApiClient,
  name: string,
  project: string | undefined,
  ttl: number | undefined,
): Promise<Json> {
  if (project) {
    return client.post(`${apiPath("virtualclusterinstances", name, projectNamespace(project))}/kubeconfig`, {
      apiVersion: APIV,
      kind: "VirtualClusterInstanceKubeConfig",
      metadata: { name },
      spec: ttl === undefined ? {} : { certificateTTL: ttl },
    });
  }
  return client.get(`${apiPath("virtualclusterinstances", name)}/kubeconfig`, {
    query: { certificateTTL: ttl === undefined ? undefined : String(ttl) },
  });
}
