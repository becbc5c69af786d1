/** The server's hooks into the audit log: completion of every request, the start of watches, response bodies. */
import type { FastifyInstance } from "fastify";
import type { FeatureContext, ServerFeature } from "../server/server-features.js";
import type { AuditLog } from "./audit-log.js";

/** The server lends: its watch streams, when each request is done, and which requests' bodies may be logged (src/server/audited-bodies.ts). */
export function installAuditHooks(
  app: FastifyInstance,
  audit: AuditLog,
  {
    watchStreams: watches,
    requestDone,
    bodiesAuditable,
  }: Pick<FeatureContext, "watchStreams" | "requestDone" | "bodiesAuditable">,
): void {
  audit.bodiesAuditable = bodiesAuditable;
  watches.started = (request) => audit.responseStarted(request, 200);
  app.addHook("onSend", async (request, _reply, payload) => {
    if (typeof payload === "string" && audit.wantsResponse(request)) audit.noteResponse(request, payload);
    return payload;
  });
  requestDone.add((request, reply) => {
    audit.record(request, request.method, request.url, reply.statusCode);
  });
}

/** The audit log installed into the API server (src/server/server-features.ts). */
export function auditFeature(audit: AuditLog): ServerFeature {
  return {
    installHooks: (app, server) => installAuditHooks(app, audit, server),
  };
}
