import type { IncomingHttpHeaders } from "node:http";
import type { AuditLog } from "../audit/audit-log.js";
import type { AccessControl } from "../authz/access-control.js";
import { ClusterGateway } from "../gateway/cluster-gateway.js";
import type { Registry } from "../registry/registry.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import type { InternalErrorLog } from "../server/request-guard.js";
import type { TrustedProxies } from "../server/trusted-proxies.js";
import type { VirtualClusterCaStore } from "../virtualclusters/ca-store.js";

/**
 * The cluster gateway (src/gateway), started. It authenticates with access keys only: a web
 * console session cookie is not a credential there, so it is dropped before authentication.
 */
export async function startGateway(
  registry: Registry,
  informers: SharedInformers,
  access: AccessControl,
  audit: AuditLog | undefined,
  cas: VirtualClusterCaStore,
  proxies: TrustedProxies,
  allowLocalEndpoints: boolean,
  logger: InternalErrorLog,
  sleepMode: { activityFlushMs?: number; wakeLimitMs?: number } = {},
): Promise<ClusterGateway> {
  const gateway = new ClusterGateway({
    registry,
    informers,
    // The gateway writes one audit line per request itself (gateway-audit.ts): identify(), not
    // authenticate(), so the audit log gets no second event for it; and the fast path applies
    // with an audit log too.
    authenticate: (request) =>
      access.identify({ ip: request.ip, method: "GET", headers: withoutCookie(request.headers) }),
    // Only ever reads the Authorization header (never a cookie).
    authenticateNow: (request) => access.identifyNow(request),
    authorizer: access.authorizer,
    cas,
    audit,
    clientAddress: proxies.trust && ((req) => proxies.clientAddress(req)),
    endpoints: { allowLocal: allowLocalEndpoints },
    logger,
    sleepMode,
  });
  await gateway.start();
  return gateway;
}

function withoutCookie(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return headers.cookie === undefined ? headers : { ...headers, cookie: undefined };
}
