/**
 * The audit log's stages in the server's request pipeline (src/server/request-pipeline.ts): the
 * response bodies it keeps and the completion of every request, whichever branch answered it
 * (fastify's routing or a fast branch), and the start of watches.
 */
import type { RequestPipeline } from "../server/request-pipeline.js";
import type { ServerFeature } from "../server/server-features.js";
import type { WatchStreams } from "../server/watch-stream.js";
import type { AuditLog, BodiesAuditable } from "./audit-log.js";

/** `bodiesAuditable`: which requests' bodies may be logged (src/server/audited-bodies.ts). */
export function installAuditHooks(
  requests: RequestPipeline,
  audit: AuditLog,
  watches: WatchStreams,
  bodiesAuditable: BodiesAuditable,
): void {
  audit.bodiesAuditable = bodiesAuditable;
  watches.started = (request) => audit.responseStarted(request, 200);
  requests.join({
    sending(request, payload) {
      if (typeof payload === "string" && audit.wantsResponse(request)) audit.noteResponse(request, payload);
    },
    done(request, answer) {
      audit.record(request, request.method, request.url, answer.statusCode);
    },
  });
}

/** The audit log installed into the API server (src/server/server-features.ts). */
export function auditFeature(audit: AuditLog): ServerFeature {
  return {
    installHooks: (_app, server) =>
      installAuditHooks(server.requests, audit, server.watchStreams, server.bodiesAuditable),
  };
}
