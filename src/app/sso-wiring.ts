import type { FastifyInstance } from "fastify";
import { startConsoleSession } from "../console/console-routes.js";
import type { ConsoleSessions } from "../console/sessions.js";
import type { ControllerManager } from "../controllers/controller-manager.js";
import { SingleSignOn, type SsoDeps, ssoInfo } from "../sso/sso.js";
import type { ServerConfig } from "./config.js";

/**
 * Single sign-on (src/sso): `GET /auth/oidc/config` always, and with `--oidc-issuer-url` the
 * sign-in routes, the Login-key refresh and the sweep of expired sign-ins, both on the elected
 * replica (sign-ins in progress are in the store, so any replica answers any step). A browser sign-in
 * ends in a web console session (then /console/) unless the embedder passes its own ending.
 */
export function wireSso(
  app: FastifyInstance,
  config: ServerConfig,
  controllers: ControllerManager,
  /** Where a browser sign-in's console session begins (the console's sessions). */
  consoleSessions: ConsoleSessions,
  deps: Omit<SsoDeps, "finish">,
): SingleSignOn | undefined {
  app.get("/auth/oidc/config", async (_req, reply) => reply.send(ssoInfo(config.oidc)));
  if (!config.oidc) return undefined;
  const sso = new SingleSignOn(config.oidc, {
    ...deps,
    now: config.signInClock,
    finish:
      config.finishBrowserLogin ??
      (async (reply, key) => {
        await startConsoleSession(consoleSessions, reply, key);
        return reply.redirect("/console/", 303);
      }),
  });
  sso.register(app);
  controllers.register({
    name: "oidc-login-refresh",
    start: () => sso.refresher.start(),
    stop: () => sso.refresher.stop(),
  });
  controllers.register({
    name: "oidc-sign-in-sweep",
    start: () => sso.sweeper.start(),
    stop: () => sso.sweeper.stop(),
  });
  return sso;
}
