import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { errors } from "../api/errors.js";
import { AuditLog } from "../audit/audit-log.js";
import { bearerToken } from "../auth/authenticator.js";
import { clusterCannotBeUsed } from "../clusters/cluster-connection.js";
import { useKubeConfigTokenFiles } from "../clusters/kubeconfig-token-file.js";
import { TLS_PREFERENCES } from "../crypto/tls-preferences.js";
import { parseForwardedPath } from "../gateway/forwarded-path.js";
import { auditForwarded } from "../gateway/gateway-audit.js";
import { GatewayHandler, type Resolved } from "../gateway/gateway-handler.js";
import { gatewayScopeAllows } from "../gateway/gateway-scope.js";
import { kubeRequestAttributes } from "../gateway/kube-request.js";
import { retireUpstream, type Upstream, upstreamFromKubeConfig } from "../gateway/upstream.js";
import { clientErrorHandler } from "../server/protocol-errors.js";
import { guardRequest, guardUpgrade, stderrLog } from "../server/request-guard.js";
import { TrustedProxies } from "../server/trusted-proxies.js";
import { DirectTokenVerifier } from "./token-verifier.js";

export interface AgentConfig {
  /** The platform's base URL (its `/.well-known/jwks.json` is fetched from there). */
  platformUrl: string;
  /** PEM of the CA that signed the platform's serving certificate, when not a public one. */
  platformCaPem?: string;
  /** The Cluster name this agent serves: tokens must name it in their scope. */
  cluster: string;
  /** A kubeconfig for the cluster's API server (credentials allowed to impersonate users and groups). */
  upstreamKubeconfig: string;
  host: string;
  port: number;
  /** The agent's serving certificate and key (PEM). */
  tls: { certPem: string; keyPem: string };
  /** JSON lines of forwarded requests to this file, `-` for stdout. */
  auditLog?: string;
  /**
   * `--trusted-proxies`: CIDR ranges of the proxies in front of the agent (an Ingress), whose
   * X-Forwarded-For gives the client's address in the audit lines; default none (the server's
   * option and parsing, server/trusted-proxies.ts).
   */
  trustedProxies?: string[];
}

export interface RunningAgent {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * The direct cluster endpoint: an HTTPS gateway beside one cluster that accepts
 * DirectClusterEndpointTokens (not access keys), enforces their scope, and forwards exactly
 * as the central gateway does (shared src/gateway code): the caller's credentials and
 * Impersonate-* headers dropped, the upstream kubeconfig's credentials plus Impersonate-User
 * and -Group of the token's subject, bodies and upgrades streamed.
 */
export async function startAgent(config: AgentConfig): Promise<RunningAgent> {
  // First: a range that does not parse stops the start before anything is opened.
  const proxies = new TrustedProxies(config.trustedProxies);
  const kc = new KubeConfig();
  kc.loadFromFile(config.upstreamKubeconfig);
  useKubeConfigTokenFiles(kc, config.upstreamKubeconfig, readFileSync(config.upstreamKubeconfig, "utf8"));
  let upstream = upstreamFromKubeConfig(kc);
  /** The upstream, built again when its token file was rotated (the kubelet rewrites a pod's token). */
  const currentUpstream = (): Upstream => {
    if (!upstream.credentialsChanged?.()) return upstream;
    try {
      const replaced = upstream;
      upstream = upstreamFromKubeConfig(kc);
      retireUpstream(replaced);
    } catch (err) {
      // The file is between two writes: the token read last is still sent, and it is read again next time.
      stderrLog.error({ error: (err as Error).message }, "cannot read the upstream kubeconfig's token file again");
    }
    return upstream;
  };
  const verifier = new DirectTokenVerifier(config.platformUrl, config.cluster, { platformCaPem: config.platformCaPem });
  try {
    await verifier.prefetch();
  } catch (err) {
    // Keys are fetched again on the first token; the agent starts even while the platform is down.
    process.emitWarning(`cannot fetch the platform's token keys yet: ${(err as Error).message}`);
  }
  const audit = config.auditLog ? new AuditLog(config.auditLog) : undefined;
  const label = `cluster/${config.cluster}`;
  // The agent's callers hold a token for the cluster, not the right to read its API server's address.
  const cannotBeUsed = (reason: string) => clusterCannotBeUsed(config.cluster, reason);
  const resolve = async (req: IncomingMessage): Promise<Resolved> => {
    const token = await verifier.verify(bearerToken(req.headers.authorization));
    // Read once, before any decision; a path that is not canonical is 400 (forwarded-path.ts).
    const forwarded = parseForwardedPath(req.url ?? "/");
    const target = { kind: "cluster" as const, cluster: config.cluster };
    if (!gatewayScopeAllows(token.scope, target, kubeRequestAttributes(req.method ?? "GET", forwarded))) {
      throw errors.forbiddenMessage(
        `User "${token.user.name}" cannot do this on cluster "${config.cluster}": the token's scope does not allow it`,
      );
    }
    const impersonate = {
      user: token.user.subjectKind === "Team" ? `platform:team:${token.user.name}` : token.user.name,
      groups: token.groups,
    };
    return {
      forward: { upstream: currentUpstream(), path: forwarded.pathAndQuery, impersonate, cannotBeUsed },
      user: token.user,
      label,
    };
  };
  const handler = new GatewayHandler(
    resolve,
    (r) => auditForwarded(audit, r),
    () => label,
    (req) => proxies.clientAddress(req),
  );
  // Guarded as the server's are (request-guard.ts): one request's exception is its 500, never the agent's end.
  const server = createServer(
    { key: config.tls.keyPem, cert: config.tls.certPem, ...TLS_PREFERENCES },
    guardRequest((req, res) => handler.serve(req, res), stderrLog),
  );
  server.on(
    "upgrade",
    guardUpgrade((req, socket, head) => handler.serveUpgrade(req, socket, head), stderrLog),
  );
  // What node's parser refuses itself (headers too large: 431) is a Status too, as on the server.
  server.on("clientError", clientErrorHandler);
  server.keepAliveTimeout = 72_000;
  server.requestTimeout = 0;
  await new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(config.port, config.host, () => done());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  return {
    url: `https://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    async close() {
      handler.closeAll();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
      upstream.agent.destroy();
      await audit?.close();
    },
  };
}
