/**
 * `GET /metrics` on the API port (authenticated; admins and platform-management-view, like a
 * non-resource URL in kube-apiserver), and optionally on a plain-HTTP `--metrics-listen` address
 * for a local scraper (no authentication: bind it to loopback). Under `--workers N` both show every
 * worker's metrics, merged by the primary (worker-scrape.ts).
 */
import { createServer, type Server } from "node:http";
import type { FastifyInstance } from "fastify";
import { errors } from "../api/errors.js";
import { type Authorizer, nonResourceAttributes } from "../authz/contract.js";
import type { Guarded } from "../server/server-features.js";
import { metricsRegistry } from "./metrics.js";
import { scrapeMetrics } from "./worker-scrape.js";

export function registerMetricsRoute(app: FastifyInstance, deps: { authorizer: Authorizer; guarded: Guarded }): void {
  app.get(
    "/metrics",
    deps.guarded(async (_request, reply, ctx) => {
      const decision = await deps.authorizer.authorize(ctx.user, nonResourceAttributes("get", "/metrics"));
      if (!decision.allowed) throw errors.forbiddenPath(ctx.user.name, "get", "/metrics");
      return reply.type(metricsRegistry.contentType).send(await scrapeOrUnavailable());
    }),
  );
}

/** Every worker's metrics under `--workers N` (worker-scrape.ts); a worker that does not answer fails the scrape. */
async function scrapeOrUnavailable(): Promise<string> {
  try {
    return await scrapeMetrics();
  } catch (err) {
    throw errors.unavailable(`metrics are unavailable: ${errorText(err)}`);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A plain-HTTP listener that serves only GET /metrics. Resolves once it listens. */
export async function startMetricsListener(host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found: only GET /metrics is served here\n");
      return;
    }
    scrapeMetrics().then(
      (text) => res.writeHead(200, { "content-type": metricsRegistry.contentType }).end(text),
      (err: unknown) => res.writeHead(503, { "content-type": "text/plain" }).end(`${errorText(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}
