import type { FastifyInstance } from "fastify";

/** How long the storage check waits for an answer before it counts as failed. */
const STORAGE_CHECK_TIMEOUT_MS = 2_000;

export interface HealthCheck {
  name: string;
  /** Resolves when healthy; rejects (or times out) otherwise. */
  check(): Promise<void>;
}

/** The storage check, named `etcd` for etcd as kube-apiserver names it, else `storage`. */
export function storageCheck(storage: { currentRevision(): Promise<number> }, isEtcd: boolean): HealthCheck {
  return {
    name: isEtcd ? "etcd" : "storage",
    async check() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("no answer in time")), STORAGE_CHECK_TIMEOUT_MS);
      });
      try {
        await Promise.race([storage.currentRevision(), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

const ping: HealthCheck = { name: "ping", check: async () => {} };

/**
 * kube-apiserver's `shutdown` readiness check: it fails from the moment the server begins to stop,
 * so that load balancers send traffic elsewhere; /livez and /healthz do not have it (a draining
 * server is not unhealthy: restarting it would only cut the requests it is finishing).
 */
export function shutdownCheck(stopping: () => boolean): HealthCheck {
  return {
    name: "shutdown",
    async check() {
      if (stopping()) throw new Error("the server is shutting down");
    },
  };
}

const HEALTH_PATH = /^\/(?:livez|readyz|healthz)(?:[/?]|$)/;

/** A health probe (GET or HEAD of /livez, /readyz, /healthz or one of their checks): answered even while stopping. */
export function isHealthProbe(method: string | undefined, url: string | undefined): boolean {
  return (method === "GET" || method === "HEAD") && url !== undefined && HEALTH_PATH.test(url);
}

/**
 * /livez, /readyz and /healthz as kube-apiserver answers them: `ok` when every check passes
 * (`?verbose`: one `[+]name ok` line each, then `<endpoint> check passed`); when one fails,
 * 503 with every check listed, failures as `[-]name failed: reason withheld` (the reason goes
 * to the server log, not to unauthenticated callers). kube-apiserver answers 500 there; 503
 * says the same to load balancers and keeps 5xx-other-than-503 for real faults. `/readyz/NAME`
 * runs one check. /livez has only `ping`: restarting the server does not bring storage back.
 * /readyz also has `shutdown` (last, as kube-apiserver lists it), failing once `stopping()`.
 */
export function registerHealthRoutes(app: FastifyInstance, storage: HealthCheck, stopping: () => boolean): void {
  const sets: Record<string, HealthCheck[]> = {
    livez: [ping],
    readyz: [ping, storage, shutdownCheck(stopping)],
    healthz: [ping, storage],
  };
  for (const [endpoint, checks] of Object.entries(sets)) {
    app.get(`/${endpoint}`, async (request, reply) => {
      const verbose = Object.hasOwn(request.query as object, "verbose");
      const { status, text } = await runChecks(app, endpoint, checks, verbose);
      return reply.code(status).type("text/plain; charset=utf-8").header("cache-control", "no-cache").send(text);
    });
    for (const one of checks) {
      app.get(`/${endpoint}/${one.name}`, async (_request, reply) => {
        const { status, text } = await runChecks(app, endpoint, [one], false);
        return reply.code(status).type("text/plain; charset=utf-8").send(text);
      });
    }
  }
}

async function runChecks(
  app: FastifyInstance,
  endpoint: string,
  checks: readonly HealthCheck[],
  verbose: boolean,
): Promise<{ status: number; text: string }> {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await c.check();
        return { name: c.name, ok: true };
      } catch (err) {
        app.log.warn(
          { check: c.name, err: err instanceof Error ? err.message : String(err) },
          `${endpoint} check failed`,
        );
        return { name: c.name, ok: false };
      }
    }),
  );
  const failed = results.some((r) => !r.ok);
  if (!failed && !verbose) return { status: 200, text: "ok" };
  const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`));
  return {
    status: failed ? 503 : 200,
    text: `${lines.join("\n")}\n${endpoint} check ${failed ? "failed" : "passed"}\n`,
  };
}
