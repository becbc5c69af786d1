import { CliError } from "./errors.js";

interface Named {
  name: string;
  [k: string]: unknown;
}

/** The parts of a kubeconfig the guard reads. */
export interface KubeconfigEntries {
  clusters?: Named[];
  users?: Named[];
  contexts?: Named[];
}

/**
 * The fields of a cluster entry that decide where a credential goes and whom it trusts there.
 * Two entries with the same destination are the same server; anything else is another server
 * (or the same URL trusted differently, which would change what another context's key trusts).
 */
function destination(cluster: Record<string, unknown>): string {
  return JSON.stringify([
    String(cluster.server ?? "").replace(/\/+$/, ""),
    String(cluster["certificate-authority-data"] ?? "").trim(),
    String(cluster["certificate-authority"] ?? ""),
    cluster["insecure-skip-tls-verify"] === true,
    String(cluster["tls-server-name"] ?? ""),
    String(cluster["proxy-url"] ?? ""),
  ]);
}

/** A kubeconfig list as written (a hand-edited file may hold anything there). */
function listOf(list: unknown): Named[] {
  return Array.isArray(list) ? list.filter((e): e is Named => typeof e === "object" && e !== null) : [];
}

function clusterNamed(cfg: KubeconfigEntries, name: unknown): Record<string, unknown> | undefined {
  const entry = listOf(cfg.clusters).find((c) => c.name === name)?.cluster;
  return entry && typeof entry === "object" ? (entry as Record<string, unknown>) : undefined;
}

function contextOf(entry: Named): { cluster?: unknown; user?: unknown } {
  const ctx = entry.context;
  return ctx && typeof ctx === "object" ? (ctx as { cluster?: unknown; user?: unknown }) : {};
}

/** `remove` is the kubectl command that frees the name (the entry that binds it to the other server). */
function refusal(file: string, what: string, elsewhere: Record<string, unknown>, remove: string): never {
  throw new CliError(
    `${file}: ${what} points at ${String(elsewhere.server ?? "(no server)")} (another server, or the same one with another CA or TLS setting); not overwriting it, so its credentials keep going where they went. Pick another name with --context-name, or remove the old entry first: ${remove}`,
  );
}

/**
 * Refuses (CliError) to write the cluster/user/context triple `name` for `cluster` when an
 * existing entry of that name belongs to another server: the cluster `name` itself, the cluster
 * the context `name` uses, or the cluster of any context that uses the user `name` (a user entry is
 * bound to the servers its contexts reach; credentials for one server never go under it).
 */
export function refuseForeignEntries(
  cfg: KubeconfigEntries,
  name: string,
  cluster: Record<string, unknown>,
  file: string,
): void {
  const wanted = destination(cluster);
  const differs = (other: Record<string, unknown> | undefined): other is Record<string, unknown> =>
    other !== undefined && destination(other) !== wanted;

  const sameName = clusterNamed(cfg, name);
  if (differs(sameName)) refusal(file, `cluster "${name}"`, sameName, `kubectl config delete-cluster ${name}`);

  const context = listOf(cfg.contexts).find((c) => c.name === name);
  const contextCluster = context ? clusterNamed(cfg, contextOf(context).cluster) : undefined;
  if (differs(contextCluster)) {
    refusal(file, `context "${name}"`, contextCluster, `kubectl config delete-context ${name}`);
  }

  for (const other of listOf(cfg.contexts)) {
    const { cluster: usedCluster, user } = contextOf(other);
    if (user !== name) continue;
    const reached = clusterNamed(cfg, usedCluster);
    if (differs(reached)) {
      const what = `user "${name}" (used by context "${other.name}")`;
      refusal(file, what, reached, `kubectl config delete-context ${other.name}`);
    }
  }
}
