import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { configPath, type LoginConfig } from "./config.js";
import { CliError } from "./errors.js";
import { withFileLock } from "./file-lock.js";
import { refuseForeignEntries } from "./kubeconfig-guard.js";
import { parse, preloadYaml, stringify } from "./lazy-yaml.js";
import { EXEC_CREDENTIAL_VERSION } from "./token.js";

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

function readKubeconfig(file: string): KubeConfig {
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
 * other entry alone), optionally makes it current, and writes the file with mode 0600. An entry of
 * that name that belongs to another server is never replaced: the write is refused instead
 * (kubeconfig-guard.ts). The file is read and written under `FILE.lock`, the lock kubectl
 * (client-go) takes, so two writers never lose each other's contexts.
 */
export function mergeContext(
  file: string,
  name: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
  switchTo: boolean,
  /** The context's default namespace (a space's); none when absent. */
  namespace?: string,
): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  preloadYaml();
  withFileLock(`${file}.lock`, () => writeMerged(file, name, cluster, user, switchTo, namespace));
}

function writeMerged(
  file: string,
  name: string,
  cluster: Record<string, unknown>,
  user: Record<string, unknown>,
  switchTo: boolean,
  namespace: string | undefined,
): void {
  const cfg = readKubeconfig(file);
  refuseForeignEntries(cfg, name, cluster, file);
  cfg.apiVersion ??= "v1";
  cfg.kind ??= "Config";
  cfg.clusters = upsert(cfg.clusters, { name, cluster });
  cfg.users = upsert(cfg.users, { name, user });
  cfg.contexts = upsert(cfg.contexts, {
    name,
    context: { cluster: name, user: name, ...(namespace ? { namespace } : {}) },
  });
  if (switchTo || !cfg["current-context"]) cfg["current-context"] = name;
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

/**
 * The kubeconfig user of a login: `platform token` as an exec credential plugin, or (inlineKey) the
 * key itself. The plugin is told the login's server, so after a login to another server it refuses
 * rather than hand that server's key to this context.
 */
function loginUser(login: LoginConfig, inlineKey: boolean): Record<string, unknown> {
  if (inlineKey) return { token: login.accessKey };
  return {
    exec: {
      apiVersion: EXEC_CREDENTIAL_VERSION,
      command: platformCommand(),
      args: ["token", "--server", login.server],
      // The config the key is read from, so the context keeps working whatever PLATFORM_CONFIG says later.
      env: [{ name: "PLATFORM_CONFIG", value: resolve(configPath()) }],
      interactiveMode: "Never",
      provideClusterInfo: false,
    },
  };
}

/** The executable kubectl runs for `platform token`: this very CLI, by absolute path. */
function platformCommand(): string {
  const script = process.argv[1];
  if (!script) return "platform";
  try {
    return realpathSync(script);
  } catch {
    return resolve(script);
  }
}

/**
 * Adds a kube context named `name` for a server reached with the stored login (its CA and TLS
 * setting, its key through `platform token` unless inlineKey): every context the CLI writes for
 * the login's key goes through here.
 */
export function addLoginContext(
  login: LoginConfig,
  options: { name: string; server: string; switchTo: boolean; inlineKey?: boolean; file?: string; namespace?: string },
): string {
  const cluster: Record<string, unknown> = { server: options.server };
  if (login.certificateAuthorityData) {
    cluster["certificate-authority-data"] = Buffer.from(login.certificateAuthorityData).toString("base64");
  }
  if (login.insecureSkipTLSVerify) cluster["insecure-skip-tls-verify"] = true;
  const file = options.file ?? kubeconfigPath();
  const user = loginUser(login, options.inlineKey === true);
  mergeContext(file, options.name, cluster, user, options.switchTo, options.namespace);
  return file;
}
