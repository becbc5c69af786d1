import type { Command } from "commander";
import { DIRECT_ENDPOINT_ANNOTATION, DIRECT_ENDPOINT_CA_ANNOTATION } from "../api/endpoint-annotations.js";
import { perServerName } from "../support/kubeconfig-names.js";
import { GROUP_API, type Json } from "./api-client.js";
import { loggedInClient, projectNamespace, verbCommand } from "./common.js";
import { requireLogin } from "./config.js";
import { CliError } from "./errors.js";
import { addLoginContext, kubeconfigPath, mergeContext } from "./kubeconfig.js";
import { requireUsable } from "./use-access.js";

interface UseOptions {
  contextName?: string;
  switch: boolean;
}

/** `platform use cluster NAME [--direct]` and `platform use vcluster NAME --project P`. */
export function registerUseClusterCommands(program: Command): void {
  const use = verbCommand(program, "use", "Point kubectl at something");
  use
    .command("cluster <name>")
    .description(
      "Add a kubectl context for a connected cluster through the platform's gateway (with your access key; the cluster's own credentials stay on the server) and make it current",
    )
    .option("--direct", "connect to the cluster's agent instead, with a new direct cluster endpoint token")
    .option("--ttl <seconds>", "lifetime of the direct token (with --direct)", "28800")
    .option(
      "--context-name <name>",
      "name of the context (default: platform_<cluster>@HOST:PORT of the login's server)",
    )
    .option("--no-switch", "add the context without making it current")
    .addHelpText(
      "after",
      "\nExamples:\n  platform use cluster prod && kubectl get pods -A\n  platform use cluster prod --direct --ttl 3600",
    )
    .action((name: string, opts: UseOptions & { direct?: boolean; ttl: string }) =>
      opts.direct ? useDirect(name, opts) : useCluster(name, opts),
    );
  use
    .command("vcluster <name>")
    .description("Add a kubectl context for a virtual cluster through the platform's gateway and make it current")
    .requiredOption("-p, --project <project>", "the project of the virtual cluster instance")
    .option(
      "--context-name <name>",
      "name of the context (default: platform_<project>_<name>@HOST:PORT of the login's server)",
    )
    .option("--no-switch", "add the context without making it current")
    .addHelpText("after", "\nExamples:\n  platform use vcluster dev --project web && kubectl get ns")
    .action(async (name: string, opts: UseOptions & { project: string }) => {
      await requireUsable(loggedInClient(), {
        resource: "virtualclusterinstances",
        name,
        namespace: projectNamespace(opts.project),
        noun: "virtual cluster",
        scope: `in project ${opts.project}`,
      });
      const path = `/kubernetes/project/${encodeURIComponent(opts.project)}/virtualcluster/${encodeURIComponent(name)}`;
      writeGatewayContext(`platform_${opts.project}_${name}`, opts.contextName, path, opts.switch);
    });
}

async function useCluster(name: string, opts: UseOptions): Promise<void> {
  await requireUsable(loggedInClient(), { resource: "clusters", name, noun: "cluster" });
  writeGatewayContext(
    `platform_${name}`,
    opts.contextName,
    `/kubernetes/cluster/${encodeURIComponent(name)}`,
    opts.switch,
  );
}

/**
 * A context whose server is the gateway path on the logged-in platform and whose user is the
 * stored login's key, with `namespace` as its default if given; named `given`, else
 * `base@HOST:PORT` of the login's server.
 */
export function writeGatewayContext(
  base: string,
  given: string | undefined,
  path: string,
  switchTo: boolean,
  namespace?: string,
): void {
  const login = requireLogin();
  const context = given ?? perServerName(base, login.server);
  const server = `${login.server}${path}`;
  const file = addLoginContext(login, { name: context, server, switchTo, inlineKey: true, namespace });
  process.stdout.write(
    `Context ${context} added to ${file}${switchTo ? " and made current" : ""}. Try: kubectl${switchTo ? "" : ` --context ${context}`} get namespaces\n`,
  );
}

async function useDirect(name: string, opts: UseOptions & { ttl: string }): Promise<void> {
  const client = loggedInClient();
  const cluster: Json = await client.get(`${GROUP_API}/clusters/${encodeURIComponent(name)}`);
  const endpoint = cluster?.metadata?.annotations?.[DIRECT_ENDPOINT_ANNOTATION] as string | undefined;
  if (!endpoint) {
    throw new CliError(`cluster ${name} has no agent: its annotation ${DIRECT_ENDPOINT_ANNOTATION} is not set`);
  }
  // The server accepts only https there; one written before it checked gets no token either.
  if (!/^https:\/\//i.test(endpoint)) {
    throw new CliError(`cluster ${name}'s agent endpoint ${endpoint} is not https: no token is sent there`);
  }
  const ttl = Number(opts.ttl);
  if (!Number.isInteger(ttl) || ttl <= 0) throw new CliError(`--ttl must be a positive number of seconds`, 2);
  const issued: Json = await client.post(`${GROUP_API}/directclusterendpointtokens`, {
    apiVersion: "management.platform/v1",
    kind: "DirectClusterEndpointToken",
    metadata: {},
    // The agent accepts only tokens whose scope names its cluster.
    spec: { ttl, scope: { rules: [{ cluster: name }] } },
  });
  const token = issued?.status?.token as string | undefined;
  if (!token) throw new CliError("the server issued no token");
  const entry: Record<string, unknown> = { server: endpoint };
  const ca = cluster?.metadata?.annotations?.[DIRECT_ENDPOINT_CA_ANNOTATION] as string | undefined;
  if (ca) entry["certificate-authority-data"] = ca;
  // Named after the platform that issued the token: two platforms may both have a cluster `name`.
  const context = opts.contextName ?? perServerName(`platform_${name}_direct`, client.conn.server);
  const file = kubeconfigPath();
  mergeContext(file, context, entry, { token }, opts.switch);
  process.stdout.write(
    `Context ${context} (direct to ${endpoint}, token valid ${ttl} s) added to ${file}${opts.switch ? " and made current" : ""}.\n`,
  );
}
