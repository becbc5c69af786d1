/**
 * The hot read — GET of one object as JSON — answered by a branch of the request pipeline, without fastify's routing.
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
 * failing, a denied or missing object, a kind that transforms what it stores or shows) is left
 * to the normal handler, which then answers it exactly as before — errors and failed-auth
 * counting included. What a caller receives is the same either way, and so is what the access
 * log, the metrics and the audit log record (it answers inside the request pipeline:
 * front-door.ts, taken-request.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { RequestAttributes } from "../authz/contract.js";
import { asksToImpersonate } from "../authz/impersonation.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext, UserInfo } from "../registry/request-context.js";
import type { FastBranch } from "./front-door.js";
import { HotPathCache } from "./hot-path-cache.js";
import { negotiateResponse } from "./negotiation.js";
import { answerInternalError } from "./request-guard.js";
import { TakenRequest, type TakenRequestDeps } from "./taken-request.js";
import { peerAddress } from "./trusted-proxies.js";

/** What the fast branches (this one and fast-create.ts) need from the server alike. */
export interface FastPathDeps extends TakenRequestDeps {
  registry: Registry;
  /** `{prefix}/apis/<group>/<version>/` */
  groupPrefix: string;
  /**
   * The caller's context, or undefined when it cannot be had at once (nothing is counted). It
   * notes nothing in the audit log: the branch does (noteCaller), once it knows it answers.
   */
  authenticate(request: { ip: string; headers: IncomingMessage["headers"] }): RequestContext | undefined;
  /** Whether the caller may, decided at once; false also when only a wait could tell. */
  allows(user: UserInfo, attrs: RequestAttributes): boolean;
  /** While true (shutting down) every request takes the normal path. */
  bypassed(): boolean;
  /** The client's address (`--trusted-proxies`, trusted-proxies.ts); default the socket's peer. */
  clientAddress?(req: IncomingMessage): string;
}

/**
 * A request taken is answered at once, or, when the answer waits for the store's revision check
 * (etcd), then; if the path cannot answer it after all, it hands it to `routed` untouched.
 */
export function fastGet(deps: FastPathDeps): FastBranch {
  const paths = new HotPathCache(deps.registry);
  return (req, res, routed) => {
    const started = performance.now();
    const url = req.url ?? "";
    if (req.method !== "GET" || !url.startsWith(deps.groupPrefix) || url.includes("?") || deps.bypassed()) return false;
    const h = req.headers;
    if (asksToImpersonate(h)) return false;
    let served: ReturnType<HotPathCache["resolve"]>;
    try {
      const format = negotiateResponse(h.accept, true);
      if (format.encoding !== "json" || format.table) return false;
      served = paths.resolve(url.slice(deps.groupPrefix.length));
    } catch {
      // A bad path, a bad Accept: the normal handler answers it properly.
      return false;
    }
    const { path, getAttributes, key } = served;
    if (key === undefined || path.subresource || !path.rt.verbs.includes("get") || path.rt.readerFilter) return false;
    const ip = (deps.clientAddress ?? peerAddress)(req);
    const ctx = deps.authenticate({ ip, headers: h });
    if (!ctx || !deps.allows(ctx.user, getAttributes)) return false;
    let bytes: ReturnType<typeof path.store.readRawSoon>;
    try {
      bytes = path.store.readRawSoon(key);
    } catch {
      // Anything unexpected: the normal handler answers it properly.
      return false;
    }
    if (bytes instanceof Promise) {
      // Passed on from the callbacks, not as a promise: one promise and microtask less per GET.
      bytes.then(
        (b) => {
          try {
            if (!send(deps, req, res, b, ctx, ip, started)) routed(req, res);
          } catch (err) {
            // Outside the front door's guard now: a throw here would end the process.
            answerInternalError(req, res, err, deps.log);
          }
        },
        () => routed(req, res),
      );
      return true;
    }
    return send(deps, req, res, bytes, ctx, ip, started);
  };
}

/** Answers with the stored bytes, inside the pipeline (plain arguments: nothing allocated to pass them). */
function send(
  deps: FastPathDeps,
  req: IncomingMessage,
  res: ServerResponse,
  bytes: Buffer | null | undefined,
  ctx: RequestContext,
  ip: string,
  started: number,
): boolean {
  if (!bytes || res.headersSent) return false;
  const taken = new TakenRequest(deps, req, res, ip, "get", started);
  taken.callerKnown(ctx.user);
  taken.answer(200, "application/json", bytes, ctx.warnings);
  return true;
}
