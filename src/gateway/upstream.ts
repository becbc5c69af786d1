import { readFileSync } from "node:fs";
import { Agent } from "node:https";
import { createRequire } from "node:module";
import { createSecureContext } from "node:tls";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Pool } from "undici";
import { allowedEndpoint, type EndpointPolicy } from "../clusters/endpoint-policy.js";
import { TokenFile } from "./token-file.js";

/**
 * Where forwarded requests go and with which credentials: a base URL, one keep-alive
 * https.Agent (its TLS settings are the trust and client certificate) and the headers that
 * authenticate the platform there. Built once per cluster (or per virtual cluster user), never
 * per request.
 */
export interface Upstream {
  /** The API server's base URL. */
  base: URL;
  /** Its path without the trailing slash (`""` for a server at the root): prefixes every forwarded path. */
  pathPrefix: string;
  /** Upgrades (exec, attach, port-forward) leave their pool with the socket: node's https client. */
  agent: Agent;
  /** Every other request: an undici keep-alive pool (cheaper per request than node's client). */
  pool: Pool;
  /** Credential headers added to every request (Authorization for token or basic credentials). */
  headers: Readonly<Record<string, string>>;
  /** The same as raw header lines (name, value, name, value…), made once with the upstream for undici's dispatch. */
  headerLines: readonly string[];
  /**
   * Whether the credentials it was built from have changed since (a token file the kubelet
   * rotated): then it is to be built again. Absent when they cannot change.
   */
  credentialsChanged?: () => boolean;
}

export interface UpstreamTls {
  caPem?: string | Buffer;
  certPem?: string | Buffer;
  keyPem?: string | Buffer;
  insecureSkipTLSVerify?: boolean;
  serverName?: string;
}

let undici: typeof import("undici") | undefined;

/**
 * undici, loaded when the first upstream is made rather than when the server starts (a server
 * with no cluster never needs it; it is a hundred files). require() keeps makeUpstream synchronous.
 */
function loadUndici(): typeof import("undici") {
  undici ??= createRequire(import.meta.url)("undici") as typeof import("undici");
  return undici;
}

/** Sockets kept open per upstream when idle; busy watches hold their own. */
const MAX_FREE_SOCKETS = 64;

export function makeUpstream(
  server: string,
  tls: UpstreamTls,
  headers: Record<string, string>,
  policy?: EndpointPolicy,
): Upstream {
  // Without a policy: the agent's own kubeconfig, which its operator gave it.
  const { base, lookup } = policy ? allowedEndpoint(server, policy) : { base: new URL(server), lookup: undefined };
  const pathPrefix = base.pathname.replace(/\/+$/, "");
  // One TLS context for every connection of both pools: otherwise each new socket parses the CA
  // and the client certificate again.
  const secureContext = createSecureContext({ ca: tls.caPem, cert: tls.certPem, key: tls.keyPem });
  const rejectUnauthorized = tls.insecureSkipTLSVerify !== true;
  const agent = new Agent({
    keepAlive: true,
    maxFreeSockets: MAX_FREE_SOCKETS,
    secureContext,
    rejectUnauthorized,
    servername: tls.serverName,
    ...(lookup ? { lookup } : {}),
  });
  const pool = new (loadUndici().Pool)(base.origin, {
    connect: {
      secureContext,
      rejectUnauthorized,
      ...(tls.serverName ? { servername: tls.serverName } : {}),
      ...(lookup ? { lookup } : {}),
    },
    // Idle sockets are closed before a Kubernetes API server (or node's default 5 s) would.
    keepAliveTimeout: 4_000,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  return { base, pathPrefix, agent, pool, headers, headerLines: Object.entries(headers).flat() };
}

/**
 * The current context of a kubeconfig as an upstream: CA, client certificate, token or basic auth.
 * File references are read (the agent's own kubeconfig); the platform's cluster secrets are
 * validated to hold inline data only (cluster-connection.ts) before they get here.
 */
export function upstreamFromKubeConfig(kc: KubeConfig, policy?: EndpointPolicy): Upstream {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster) throw new Error("the kubeconfig has no current cluster");
  const decode = (b64: string | undefined, file?: string) =>
    b64 ? Buffer.from(b64, "base64") : file ? readFileSync(file) : undefined;
  const headers: Record<string, string> = {};
  // In-cluster config (and a kubeconfig's tokenFile) names the pod's ServiceAccount token file.
  const tokenFilePath: string | undefined =
    user?.token === undefined && user?.authProvider?.name === "tokenFile"
      ? user.authProvider.config?.tokenFile
      : undefined;
  const tokenFile = tokenFilePath ? new TokenFile(tokenFilePath) : undefined;
  const token = user?.token ?? tokenFile?.token;
  if (token) headers.authorization = `Bearer ${token}`;
  else if (user?.username || user?.password) {
    headers.authorization = `Basic ${Buffer.from(`${user.username ?? ""}:${user.password ?? ""}`).toString("base64")}`;
  }
  const upstream = makeUpstream(
    cluster.server,
    {
      caPem: decode(cluster.caData, cluster.caFile),
      certPem: decode(user?.certData, user?.certFile),
      keyPem: decode(user?.keyData, user?.keyFile),
      insecureSkipTLSVerify: cluster.skipTLSVerify,
      serverName: cluster.tlsServerName,
    },
    headers,
    policy,
  );
  return tokenFile ? { ...upstream, credentialsChanged: () => tokenFile.changed() } : upstream;
}

/**
 * Stops pooling for an upstream that was replaced: idle sockets close now, busy ones (a watch,
 * an exec) keep running and close when their exchange ends instead of going back to the pool.
 */
export function retireUpstream(upstream: Upstream): void {
  const agent = upstream.agent;
  agent.on("free", (socket) => socket.destroy());
  for (const sockets of Object.values(agent.freeSockets)) for (const s of sockets ?? []) s.destroy();
  // Closing the pool lets the requests in flight finish, then closes its sockets.
  upstream.pool.close().catch(() => {});
}
