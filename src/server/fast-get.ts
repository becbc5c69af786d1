/**
 * The hot read — GET of one object as JSON — served before fastify routes the request.
 *
 * Clients and controllers poll single objects far more than they do anything else, and
 * fastify's routing, hooks and reply machinery cost about as much again as the read itself
 * (docs/performance.md). This path answers only the plain successful case; everything else
 * (a query string, a Table or YAML or protobuf response, impersonation, a credential that
 * fails, a denied or missing object, a kind that transforms what it stores or shows) is left
 * to the normal handler, which then answers it exactly as before — errors, failed-auth
 * counting and audit included. What a caller receives is the same either way.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { rawGet } from "../registry/cache/raw-read.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import type { Authorizer } from "./authorizer.js";
import { negotiateResponse } from "./negotiation.js";
import { resourceAttributes } from "./resource-handler.js";
import { resolveResourcePath } from "./resource-path.js";
import { warningHeaders } from "./respond.js";

export interface FastGetDeps {
  registry: Registry;
  authorizer: Authorizer;
  /** `{prefix}/apis/<group>/<version>/` */
  groupPrefix: string;
  /** The caller's context, or undefined when the credential does not simply work (nothing counted). */
  authenticate(request: { ip: string; headers: IncomingMessage["headers"] }): Promise<RequestContext | undefined>;
  /** While true (audit logging, shutting down) every request takes the normal path. */
  bypassed(): boolean;
}

/** Answers the request and resolves true, or touches nothing and resolves false. */
export type FastGet = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

export function fastGet(deps: FastGetDeps): FastGet {
  return async (req, res) => {
    const url = req.url ?? "";
    if (req.method !== "GET" || !url.startsWith(deps.groupPrefix) || url.includes("?") || deps.bypassed()) return false;
    const h = req.headers;
    if (h["impersonate-user"] !== undefined || h["impersonate-group"] !== undefined) return false;
    try {
      const format = negotiateResponse(h.accept, true);
      if (format.encoding !== "json" || format.table) return false;
      const path = resolveResourcePath(deps.registry, url.slice(deps.groupPrefix.length));
      if (!path.name || path.subresource || !path.rt.verbs.includes("get")) return false;
      const ctx = await deps.authenticate({ ip: req.socket.remoteAddress ?? "", headers: h });
      if (!ctx) return false;
      const decision = await deps.authorizer.authorize(ctx.user, resourceAttributes(path, "get"));
      if (!decision.allowed) return false;
      const bytes = await rawGet(path.store, path.namespace, path.name);
      if (!bytes || res.headersSent) return false;
      if (res.destroyed) return true; // the client is gone: nobody to answer
      const headers: Record<string, string | number | string[]> = {
        "content-type": "application/json",
        "content-length": bytes.length,
      };
      if (ctx.warnings.length) headers.warning = warningHeaders(ctx.warnings);
      res.writeHead(200, headers);
      res.end(bytes);
      return true;
    } catch {
      // Not found, a bad path, anything unexpected: the normal handler answers it properly.
      return false;
    }
  };
}
