/**
 * `GET /kubernetes/management/backup`: the whole store at one revision, as backup lines
 * (backup-stream.ts), for `platform backup`. Admins only (a non-resource path no other role
 * is granted). Values are sent as stored: secret data stays encrypted.
 */
import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { errors } from "../api/errors.js";
import { API_PREFIX } from "../api/object.js";
import { type Authorizer, nonResourceAttributes } from "../authz/contract.js";
import type { Guarded, ServerFeature } from "../server/server-features.js";
import type { Storage } from "../storage/interface.js";
import { backupLines } from "./backup-stream.js";

export const BACKUP_PATH = `${API_PREFIX}/backup`;

export function registerBackupRoute(
  app: FastifyInstance,
  deps: { authorizer: Authorizer; guarded: Guarded; store: Storage },
): void {
  app.get(
    BACKUP_PATH,
    deps.guarded(async (_request, reply, ctx) => {
      const decision = await deps.authorizer.authorize(ctx.user, nonResourceAttributes("get", BACKUP_PATH));
      if (!decision.allowed) throw errors.forbiddenPath(ctx.user.name, "get", BACKUP_PATH);
      return reply.type("application/x-ndjson").send(Readable.from(backupLines(deps.store, "api")));
    }),
  );
}

/** The backup endpoint installed into the API server (src/server/server-features.ts), copying `store`. */
export function backupFeature(store: Storage): ServerFeature {
  return { addRoutes: (app, server) => registerBackupRoute(app, { ...server, store }) };
}
