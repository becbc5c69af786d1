/**
 * The one front door of the API's https server: every request passes here, in this order.
 *
 * 1. The graceful shutdown counts it, or refuses it once the server stops (in-flight-requests.ts).
 * 2. The cluster gateway answers its own paths (`beforeRouting`, src/gateway).
 * 3. It gets its request id (request-log.ts), on its answer whichever branch gives it.
 * 4. A fast branch answers it when it is a plain case that branch serves from memory (a GET of
 *    one object: fast-get.ts; a JSON create: fast-create.ts); otherwise fastify routes it.
 *
 * Both ways run the same request pipeline (request-pipeline.ts): the access log, the metrics and
 * the audit log see a request a fast branch answered exactly as one fastify routed, and a fast
 * branch answers with the same bytes, Status errors and Warning headers. What a fast branch skips
 * is fastify's routing, request and reply objects, content-type parsing and hook chains, which
 * cost a plain request about as much CPU as its own work (docs/performance.md).
 *
 * The handler is guarded (request-guard.ts): an exception of one request is its 500, never the
 * process's end.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { InFlightRequests } from "./in-flight-requests.js";
import { guardRequest, type InternalErrorLog } from "./request-guard.js";
import { assignRequestId } from "./request-log.js";
import type { ServedBeforeRouting } from "./server-features.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Takes the request and returns true (it answers it, or hands it to `routed` untouched if it
 * finds it cannot after all), or touches nothing and returns false.
 */
export type FastBranch = (req: IncomingMessage, res: ServerResponse, routed: Handler) => boolean;

export interface FrontDoorDeps {
  inFlight: InFlightRequests;
  beforeRouting?: ServedBeforeRouting;
  /** Tried in this order. */
  fastBranches: readonly FastBranch[];
  /** fastify's routing: every request no fast branch took. */
  routed: Handler;
  log: InternalErrorLog;
}

/** The https server's `request` handler. */
export function frontDoor(deps: FrontDoorDeps): Handler {
  const { inFlight, beforeRouting, fastBranches, routed } = deps;
  return guardRequest((req, res) => {
    if (!inFlight.admit(res) || beforeRouting?.handleRequest(req, res)) return;
    assignRequestId(req, res);
    for (const branch of fastBranches) if (branch(req, res, routed)) return;
    routed(req, res);
  }, deps.log);
}
