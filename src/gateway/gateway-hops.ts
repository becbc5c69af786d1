import type { IncomingMessage } from "node:http";
import { ApiError } from "../api/errors.js";

/**
 * Loop detection. Every request a gateway (or the agent) forwards carries this header, one more
 * than it arrived with; a request arriving with the limit is refused. A cluster whose kubeconfig
 * points at the platform's own gateway (or two platforms whose clusters point at each other)
 * would otherwise be forwarded to itself without end, each round holding a socket and buffers
 * and outliving the client that started it.
 */
export const GATEWAY_HOPS_HEADER = "platform-gateway-hops";

/**
 * Forwards one request may take through gateways. A chain of platforms (a cluster connected to
 * one platform through another's gateway) takes a hop per platform; a loop takes every hop it
 * is given, so the limit only has to stay above real chains.
 */
export const MAX_GATEWAY_HOPS = 4;

/** The gateways a request has passed, by its header (a value that is no count: none). */
export function arrivingHops(req: IncomingMessage): number {
  const value = req.headers[GATEWAY_HOPS_HEADER];
  if (typeof value !== "string") return 0;
  const n = Number.parseInt(value, 10);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/** The header value a forwarded request carries on. */
export function forwardedHops(req: IncomingMessage): string {
  return String(arrivingHops(req) + 1);
}

/** The refusal of a request that has been through the limit of gateways: 508 Loop Detected. */
export function loopDetected(req: IncomingMessage): ApiError | undefined {
  const hops = arrivingHops(req);
  if (hops < MAX_GATEWAY_HOPS) return undefined;
  return new ApiError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message:
      `Loop Detected: the request has already passed ${hops} platform gateways ` +
      `(${GATEWAY_HOPS_HEADER}); a cluster's kubeconfig probably points at a platform gateway that leads back here`,
    reason: "",
    code: 508,
  });
}
