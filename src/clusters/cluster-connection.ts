import { existsSync } from "node:fs";
import type { CoreV1Api, KubeConfig, VersionApi } from "@kubernetes/client-node";
import { ApiError } from "../api/errors.js";
import { type KubeObject, specOf } from "../api/object.js";
import { DecryptionError } from "../crypto/secret-box.js";
import type { ClusterSpec } from "../kinds/cluster/cluster.js";
import type { SharedSecretSpec } from "../kinds/shared-secret/shared-secret.js";
import type { Registry } from "../registry/registry.js";
import { ENDPOINT_NOT_ALLOWED_CODE, EndpointNotAllowedError } from "../support/guarded-lookup.js";
import { allowedEndpoint, type EndpointPolicy } from "./endpoint-policy.js";
import { guardedKubeConfig } from "./guarded-kube-config.js";
import { tokenFilesOf } from "./kubeconfig-token-file.js";

/**
 * How the platform reaches a connected cluster: the kubeconfig in the Cluster's config
 * SharedSecret (data key `config`), or the in-cluster service account for `local: true`,
 * used through the ordinary Kubernetes client. Shared by the health controller and the
 * virtual cluster actions so both fail with the same readable reasons.
 */

/** The namespace of a Cluster's config secret when spec.config.secretNamespace is absent. */
export const DEFAULT_SECRET_NAMESPACE = "platform";
/** The secret data key holding the kubeconfig. */
export const KUBECONFIG_DATA_KEY = "config";
const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

/** Why a cluster could not be used; `reason` is what Cluster.status.reason shows. */
export type ConnectionReason =
  | "ConfigSecretNotFound"
  /** The config secret is stored but could not be read (its data does not decrypt, the storage failed). */
  | "ConfigSecretUnreadable"
  | "KubeConfigInvalid"
  | "InClusterConfigNotFound"
  | "ClusterUnreachable"
  | "TLSVerificationFailed"
  | "Unauthorized"
  | "Forbidden"
  | "ClusterError"
  /**
   * The platform could not get a virtual cluster's CA (kept, or read from its host cluster) or sign
   * itself a client certificate with it: its own step before any call (virtual cluster access).
   */
  | "CertificateAuthorityUnavailable"
  /** The gateway does not send users' traffic to that server (`--allow-local-endpoints`, docs/security.md). */
  | "EndpointNotAllowed"
  /**
   * A virtual cluster has no endpoint: neither its own annotation nor its cluster's ingress suffix
   * says where its API server is (virtual cluster access).
   */
  | "EndpointNotSet";

/**
 * Why a cluster as a whole could not be used, as the objects on it (spaces, instances, their
 * actions) say it: its name and the reason only. The details (its address, its config secret, the
 * client's words) are the Cluster's, whose readers may differ from theirs; its status has them.
 */
export function clusterCannotBeUsed(cluster: string, reason: string): string {
  return `cluster ${JSON.stringify(cluster)} cannot be used (${reason}); the Cluster's status says why`;
}

export class ClusterConnectionError extends Error {
  constructor(
    readonly reason: ConnectionReason,
    message: string,
    /** The HTTP status the cluster answered with, when it answered. */
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = "ClusterConnectionError";
  }
}

export interface ClusterClient {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  version: VersionApi;
  /** The server URL of the current context (for messages). */
  server: string;
}

/**
 * Builds a client for a Cluster object, or throws ClusterConnectionError (secret missing, bad
 * kubeconfig, no in-cluster config). With `endpoints`, the server must be one the platform's
 * endpoint policy allows (endpoint-policy.ts, the gateway's too): a forbidden address or scheme is
 * `EndpointNotAllowed` before anything is sent, a host name resolving to a forbidden address is
 * refused at each connection the client opens.
 */
export async function clusterClient(
  registry: Registry,
  cluster: KubeObject,
  endpoints?: EndpointPolicy,
): Promise<ClusterClient> {
  // Loaded on first use: the client library is the largest module of the server and takes
  // seconds to load on a busy machine; a server with no connected cluster never needs it.
  const { CoreV1Api, KubeConfig, VersionApi } = await import("@kubernetes/client-node");
  const spec = specOf<ClusterSpec>(cluster);
  let kc = new KubeConfig();
  if (spec.local === true && !spec.config?.secretName) {
    // loadFromCluster does not check that it is inside a pod; it would build a client for
    // "https://undefined:undefined". Check the two things it needs first.
    if (!process.env.KUBERNETES_SERVICE_HOST || !existsSync(SERVICE_ACCOUNT_TOKEN)) {
      throw new ClusterConnectionError(
        "InClusterConfigNotFound",
        `cluster "${cluster.metadata.name ?? ""}" has spec.local true but the platform is not running inside a Kubernetes cluster (no KUBERNETES_SERVICE_HOST or service account token)`,
      );
    }
    kc.loadFromCluster();
  } else {
    const secret = await configSecret(registry, cluster);
    const encoded = specOf<SharedSecretSpec>(secret.object).data?.[KUBECONFIG_DATA_KEY];
    if (!encoded) {
      throw new ClusterConnectionError(
        "KubeConfigInvalid",
        `the config ${secret.named} has no data key "${KUBECONFIG_DATA_KEY}"`,
      );
    }
    loadKubeConfig(kc, Buffer.from(encoded, "base64").toString("utf8"), secret.named);
  }
  if (endpoints) kc = withinPolicy(kc, endpoints, KubeConfig);
  const current = kc.getCurrentCluster();
  return {
    kubeConfig: kc,
    core: kc.makeApiClient(CoreV1Api),
    version: kc.makeApiClient(VersionApi),
    server: current?.server ?? "",
  };
}

/**
 * `kc` when the policy allows its server as it is written, a copy that checks what a host name
 * resolves to at each connection when that is needed; otherwise throws `EndpointNotAllowed` with
 * the policy's words (the server's address or host name and why, which the Cluster's readers see
 * in its kubeconfig anyway).
 */
function withinPolicy(kc: KubeConfig, endpoints: EndpointPolicy, Base: typeof KubeConfig): KubeConfig {
  let lookup: ReturnType<typeof allowedEndpoint>["lookup"];
  try {
    ({ lookup } = allowedEndpoint(kc.getCurrentCluster()?.server ?? "", endpoints));
  } catch (err) {
    if (err instanceof EndpointNotAllowedError) throw new ClusterConnectionError("EndpointNotAllowed", err.message);
    throw err;
  }
  if (!lookup) return kc;
  const guarded = new (guardedKubeConfig(Base))(lookup);
  guarded.loadFromOptions({
    clusters: kc.clusters,
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  });
  return guarded;
}

/**
 * The Cluster's config SharedSecret, and how messages name it: the Cluster and the secret, which
 * whoever may see the Cluster reads in its spec, never the secret's data.
 */
async function configSecret(registry: Registry, cluster: KubeObject): Promise<{ object: KubeObject; named: string }> {
  const spec = specOf<ClusterSpec>(cluster);
  const name = spec.config?.secretName ?? "";
  const namespace = spec.config?.secretNamespace || DEFAULT_SECRET_NAMESPACE;
  const of = `of cluster "${cluster.metadata.name ?? ""}"`;
  if (!name) {
    throw new ClusterConnectionError(
      "ConfigSecretNotFound",
      `cluster "${cluster.metadata.name ?? ""}" names no config secret (spec.config.secretName) and is not local`,
    );
  }
  const named = `SharedSecret ${namespace}/${name} ${of}`;
  let secret: KubeObject | undefined;
  try {
    secret = await registry.store("sharedsecrets").read(namespace, name);
  } catch (err) {
    throw new ClusterConnectionError(
      "ConfigSecretUnreadable",
      `the config ${named} cannot be read: ${unreadable(err)}`,
    );
  }
  if (!secret) {
    throw new ClusterConnectionError(
      "ConfigSecretNotFound",
      `the config ${named} does not exist (sharedsecrets.management.platform)`,
    );
  }
  return { object: secret, named };
}

/**
 * Why a stored secret could not be read, in words for the Cluster's readers: the platform's own
 * answer, or that its data does not decrypt; never the text of an unknown error, which may carry
 * what was read.
 */
function unreadable(err: unknown): string {
  if (err instanceof DecryptionError) return "its data does not decrypt with the server's encryption keys";
  if (err instanceof ApiError) return err.message;
  return "the storage could not return it";
}

/** A YAML parser's error quotes the lines around the fault, the kubeconfig's tokens and keys included: only where and what. */
function parseFailure(err: unknown): string {
  const e = err as { name?: unknown; reason?: unknown; mark?: { line?: unknown; column?: unknown } };
  if (e?.name !== "YAMLException") return (err as Error)?.message ?? String(err);
  const at =
    typeof e.mark?.line === "number" && typeof e.mark.column === "number"
      ? ` at line ${e.mark.line + 1}, column ${e.mark.column + 1}`
      : "";
  return `${typeof e.reason === "string" ? e.reason : "it is not YAML"}${at}`;
}

function loadKubeConfig(kc: KubeConfig, text: string, where: string): void {
  const invalid = (why: string) => new ClusterConnectionError("KubeConfigInvalid", `the kubeconfig in ${where} ${why}`);
  // Checked before loading: the client library reads a user's token-file while it loads, and would
  // send a file of the platform server (its keys) as the bearer token to whatever server is named.
  if (tokenFilesOf(text).size > 0) throw invalid("refers to files on disk (a token file); use an inline token");
  try {
    kc.loadFromString(text);
  } catch (err) {
    throw invalid(`cannot be read: ${parseFailure(err)}`);
  }
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster?.server) throw invalid("has no current context with a cluster server");
  try {
    new URL(cluster.server);
  } catch {
    throw invalid(`has an invalid server URL ${JSON.stringify(cluster.server)}`);
  }
  // A kubeconfig is data anyone allowed to write shared secrets controls. Commands
  // (exec, auth providers) would run on the platform server and file references would
  // read its files, so only inline credentials are accepted.
  if (user?.exec || user?.authProvider) throw invalid("uses an exec or auth-provider plugin; use inline credentials");
  if (cluster.caFile || user?.certFile || user?.keyFile) {
    throw invalid("refers to files on disk; use the *-data fields instead");
  }
}

/**
 * Turns a client error into a ClusterConnectionError with the reason a person can act on.
 * `server` is what was called, as the message names it: the server URL, or the cluster's quoted
 * name where the message reaches readers who may not see the Cluster's address (spaces, virtual
 * cluster instances, project secrets).
 */
export function classifyError(err: unknown, server: string): ClusterConnectionError {
  if (err instanceof ClusterConnectionError) return err;
  // Refused before connecting, by the address policy (support/guarded-lookup.ts).
  if (err instanceof EndpointNotAllowedError) return new ClusterConnectionError("EndpointNotAllowed", err.message);
  // The same refusal at connect time (a host name resolving to a forbidden address), as the
  // client's fetch wraps it: its code kept, its words after "reason: ".
  if (errorCode(err) === ENDPOINT_NOT_ALLOWED_CODE) {
    const words = String((err as Error)?.message ?? "");
    const reason = words.indexOf("reason: ");
    return new ClusterConnectionError(
      "EndpointNotAllowed",
      reason < 0 ? words : words.slice(reason + "reason: ".length),
    );
  }
  // The platform's own error on the way (a host cluster it could not use, a CA it could not read),
  // not the cluster's answer: its message already names what was called.
  if (err instanceof ApiError) return new ClusterConnectionError("ClusterError", err.message, err.code);
  const status = (err as { code?: unknown }).code;
  if (typeof status === "number") {
    const body = (err as { body?: unknown }).body;
    const detail = statusMessage(body);
    if (status === 401) {
      return new ClusterConnectionError(
        "Unauthorized",
        `${clusterAt(server)} rejected the kubeconfig's credentials (401 Unauthorized)${detail ? `: ${detail}` : ""}`,
        401,
      );
    }
    if (status === 403) {
      return new ClusterConnectionError(
        "Forbidden",
        `the kubeconfig's credentials are not allowed to do this on ${clusterAt(server)} (403 Forbidden)${detail ? `: ${detail}` : ""}`,
        403,
      );
    }
    return new ClusterConnectionError(
      "ClusterError",
      `${clusterAt(server)} answered ${status}${detail ? `: ${detail}` : ""}`,
      status,
    );
  }
  const code = errorCode(err);
  if (code && TLS_CODES.test(code)) {
    return new ClusterConnectionError(
      "TLSVerificationFailed",
      `cannot verify the TLS certificate of ${server}: ${code} (check certificate-authority-data in the kubeconfig)`,
    );
  }
  return new ClusterConnectionError(
    "ClusterUnreachable",
    `cannot reach ${clusterAt(server)}: ${code ?? (err as Error)?.message ?? String(err)}`,
  );
}

function clusterAt(server: string): string {
  return server ? `the cluster at ${server}` : "the cluster";
}

/** OpenSSL verification and TLS protocol errors as Node reports them. */
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS|ERR_SSL|EPROTO|HOSTNAME/;

/** The system error code, wherever the fetch layer put it (err.code, err.cause.code, "reason: …" text). */
function errorCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown; errno?: unknown } | undefined, i = 0; e && i < 5; i++) {
    if (typeof e.code === "string" && e.code !== "") return e.code;
    if (typeof e.errno === "string" && e.errno !== "") return e.errno;
    e = e.cause as typeof e;
  }
  return undefined;
}

function statusMessage(body: unknown): string | undefined {
  if (typeof body === "string") {
    try {
      return statusMessage(JSON.parse(body));
    } catch {
      return body.slice(0, 200) || undefined;
    }
  }
  if (body && typeof body === "object" && typeof (body as { message?: unknown }).message === "string") {
    return (body as { message: string }).message;
  }
  return undefined;
}

/** Runs a client call with a deadline, so a cluster that accepts connections but never answers is "unreachable", not a hang. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, server: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ClusterConnectionError("ClusterUnreachable", `the cluster at ${server} did not answer within ${ms} ms`),
        ),
      ms,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
