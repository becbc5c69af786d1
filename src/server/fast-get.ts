/**
 * The hot read — GET of one object as JSON — served before fastify routes the request.
 *
 * Clients and controllers poll single objects far more than they do anything else, and
 * fastify's routing, hooks and reply machinery cost about as much again as the read itself
 * (docs/performance.md). This path answers only the plain successful case, and only from
 * memory: a key that authenticated before (the identity cache), an allow the authorizer decides
 * at once, an object in a watch cache that is provably current. On the embedded store that is
 * all synchronous (the store knows its revision), and it allocates no promises: at tens of
 * thousands of requests a second, they were a visible share of the garbage. On etcd the cache must
 * learn the store's revision first; that check is shared by every request arriving while one is
 * in flight (one etcd round trip per batch), and the answer follows it. Everything else (a query
 * string, a Table or YAML or protobuf response, impersonation, a credential not seen yet or
 * failing, a denied or missing object, a kind that transforms what it stores or shows, audit
 * logging) is left to the normal handler, which then answers it exactly as before — errors and
 * failed-auth counting included. What a caller receives is the same either way.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestAttributes } from "../authz/contract.js";
import { asksToImpersonate } from "../authz/impersonation.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext, UserInfo } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";
import { HotPathCache } from "./hot-path-cache.js";
import { negotiateResponse } from "./negotiation.js";
import { peerAddress } from "./trusted-proxies.js";
import { warningHeaders } from "./warning-headers.js";

/** What the fast paths (this one and fast-create.ts) need from the server alike. */
export interface FastPathDeps {
  registry: Registry;
  /** `{prefix}/apis/<group>/<version>/` */
  groupPrefix: string;
  /**
   * The caller's context, or undefined when it cannot be had at once (nothing is counted), or
   * when an audit log is kept (the normal path writes its lines).
   */
  authenticate(request: { ip: string; headers: IncomingMessage["headers"] }): RequestContext | undefined;
  /** Whether the caller may, decided at once; false also when only a wait could tell. */
  allows(user: UserInfo, attrs: RequestAttributes): boolean;
  /** While true (shutting down, logging every request) every request takes the normal path. */
  bypassed(): boolean;
  /** The request id returned in X-Request-Id (src/server/request-log.ts). */
  requestId?(headers: IncomingMessage["headers"]): string;
  /** The client's address (`--trusted-proxies`, trusted-proxies.ts); default the socket's peer. */
  clientAddress?(req: IncomingMessage): string;
}

export interface FastGetDeps extends FastPathDeps {
  /** Counts one answered GET (src/metrics); allocates nothing. */
  served?(rt: ResourceType, namespaced: boolean, seconds: number): void;
}

/**
 * Takes the request and returns true, or touches nothing and returns false (the caller passes it
 * on). A request taken is answered at once, or, when the answer waits for the store's revision
 * check (etcd), then; if the path cannot answer it after all, it hands it to `otherwise` (the
 * normal handler) untouched.
 */
export type FastGet = (
  req: IncomingMessage,
  res: ServerResponse,
  otherwise: (req: IncomingMessage, res: ServerResponse) => void,
) => boolean;

export function fastGet(deps: FastGetDeps): FastGet {
  const paths = new HotPathCache(deps.registry);
  return (req, res, otherwise) => {
    const started = performance.now();
    const url = req.url ?? "";
    if (req.method !== "GET" || !url.startsWith(deps.groupPrefix) || url.includes("?") || deps.bypassed()) return false;
    const h = req.headers;
    if (asksToImpersonate(h)) return false;
    try {
      const format = negotiateResponse(h.accept, true);
      if (format.encoding !== "json" || format.table) return false;
      const { path, getAttributes, key } = paths.resolve(url.slice(deps.groupPrefix.length));
      if (key === undefined || path.subresource || !path.rt.verbs.includes("get") || path.rt.readerFilter) return false;
      const ip = (deps.clientAddress ?? peerAddress)(req);
      const ctx = deps.authenticate({ ip, headers: h });
      if (!ctx || !deps.allows(ctx.user, getAttributes)) return false;
      const bytes = path.store.readRawSoon(key);
      const warnings = ctx.warnings;
      if (bytes instanceof Promise) {
        // Passed on from the callbacks, not as a promise: one promise and microtask less per GET.
        bytes.then(
          (b) => send(res, b, warnings, deps, h, path.rt, path.namespace !== undefined, started) || otherwise(req, res),
          () => otherwise(req, res),
        );
        return true;
      }
      return send(res, bytes, warnings, deps, h, path.rt, path.namespace !== undefined, started);
    } catch {
      // A bad path, anything unexpected: the normal handler answers it properly.
      return false;
    }
  };
}

/** Writes the answer, with the request id, and counts it (plain arguments: nothing allocated to pass them). */
function send(
  res: ServerResponse,
  bytes: Buffer | null | undefined,
  warnings: readonly string[],
  deps: FastGetDeps,
  h: IncomingMessage["headers"],
  rt: ResourceType,
  namespaced: boolean,
  started: number,
): boolean {
  if (!bytes || res.headersSent) return false;
  const headers: Record<string, string | number | string[]> = {
    "content-type": "application/json",
    "content-length": bytes.length,
  };
  if (warnings.length) headers.warning = warningHeaders(warnings);
  if (deps.requestId) headers["x-request-id"] = deps.requestId(h);
  res.writeHead(200, headers);
  res.end(bytes);
  deps.served?.(rt, namespaced, (performance.now() - started) / 1000);
  return true;
}
