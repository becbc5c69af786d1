import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { CliError } from "./errors.js";
import { parse, stringify } from "./lazy-yaml.js";

interface Named {
  name: string;
  [k: string]: unknown;
}
export interface KubeConfig {
  apiVersion?: string;
  kind?: string;
  clusters?: Named[];
  users?: Named[];
  contexts?: Named[];
  "current-context"?: string;
  [k: string]: unknown;
}

/** Where kubectl reads its config: the first file of $KUBECONFIG, else ~/.kube/config. */
export function kubeconfigPath(): string {
  const env = process.env.KUBECONFIG;
  const first = env?.split(delimiter).find((p) => p !== "");
  return first ?? join(homedir(), ".kube", "config");
}

export function readKubeconfig(file: string): KubeConfig {
  if (!existsSync(file)) return { apiVersion: "v1", kind: "Config", clusters: [], users: [], contexts: [] };
  try {
    return (parse(readFileSync(file, "utf8")) as KubeConfig | null) ?? { apiVersion: "v1", kind: "Config" };
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

function upsert(list: Named[] | undefined, entry: Named): Named[] {
  return [...(list ?? []).filter((e) => e.name !== entry.name), entry];
}

/**
 * Adds one cluster/user/context triple named `name` (replacing entries of that name, leaving every
 * other entry alone), optionally makes it current, and writes the file with mode 0600.
 */
export function mergeContext(
  file: string,
  name: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
  switchTo: boolean,
): void {
  const cfg = readKubeconfig(file);
  cfg.apiVersion ??= "v1";
  cfg.kind ??= "Config";
  cfg.clusters = upsert(cfg.clusters, { name, cluster });
  cfg.users = upsert(cfg.users, { name, user });
  cfg.contexts = upsert(cfg.contexts, { name, context: { cluster: name, user: name } });
  if (switchTo || !cfg["current-context"]) cfg["current-context"] = name;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, stringify(cfg), { mode: 0o600 });
  renameSync(tmp, file);
}

/** The current context's cluster and user of a kubeconfig document (what the server returned). */
export function currentEntries(doc: KubeConfig): { cluster: Record<string, unknown>; user: Record<string, unknown> } {
  const ctxName = doc["current-context"] ?? doc.contexts?.[0]?.name;
  const ctx = (doc.contexts?.find((c) => c.name === ctxName)?.context ?? {}) as { cluster?: string; user?: string };
  const cluster = doc.clusters?.find((c) => c.name === ctx.cluster)?.cluster ?? doc.clusters?.[0]?.cluster;
  const user = doc.users?.find((u) => u.name === ctx.user)?.user ?? doc.users?.[0]?.user;
  if (!cluster || !user) throw new CliError("the server returned a kube config without a cluster or user");
  return { cluster: cluster as Record<string, unknown>, user: user as Record<string, unknown> };
}
