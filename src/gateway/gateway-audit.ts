import type { AuditLog } from "../audit/audit-log.js";
import { countGatewayRequest } from "../metrics/metrics.js";
import type { UserInfo } from "../registry/request-context.js";

/** One forwarded request: who, to where, what, and how it ended. Never a header value or a body. */
export interface ForwardedRequest {
  user?: UserInfo;
  /** `cluster/NAME` or `project/P/virtualcluster/NAME`. */
  target: string;
  method: string;
  /** The path below the target, without its query. */
  path: string;
  code: number;
  bytes: number;
  durationMs: number;
  sourceAddress: string;
}

/** The gateway's and the agent's single call into the audit log (and the gateway request count). */
export function auditForwarded(audit: Pick<AuditLog, "write"> | undefined, r: ForwardedRequest): void {
  // Refusals are not counted by target: their path is the caller's to choose, and a made-up
  // cluster name per request would grow the metric without bound. Nor is any request of a
  // caller not authenticated (no user: 401, 429 and whatever else answers before it is known).
  if (r.user && r.code !== 401 && r.code !== 403 && r.code !== 404) countGatewayRequest(r.target, r.code);
  if (!audit) return;
  audit.write({
    time: new Date().toISOString(),
    user: r.user?.name ?? "",
    ...(r.user?.impersonatedBy ? { impersonatedBy: r.user.impersonatedBy } : {}),
    keyName: r.user?.credential?.name,
    gateway: r.target,
    verb: r.method.toLowerCase(),
    path: r.path,
    code: r.code,
    bytes: r.bytes,
    durationMs: Math.round(r.durationMs * 1000) / 1000,
    sourceAddress: r.sourceAddress,
  });
}
