import type { FastifyInstance, FastifyReply, onRequestHookHandler, RouteHandlerMethod } from "fastify";

/** How long the storage check waits for an answer before it counts as failed. */
const STORAGE_CHECK_TIMEOUT_MS = 2_000;

export interface HealthCheck {
  name: string;
  /**
   * Resolves when healthy; rejects (or times out) otherwise. The rejection's message is shown to
   * unauthenticated callers of `/readyz/NAME`, so it says what failed and nothing of the set-up;
   * the detail goes in its `cause`, which only the server log gets.
   */
  check(): Promise<void>;
}

/** The storage check, named `etcd` for etcd as kube-apiserver names it, else `storage`. */
export function storageCheck(storage: { currentRevision(): Promise<number> }, isEtcd: boolean): HealthCheck {
  const name = isEtcd ? "etcd" : "storage";
  return {
    name,
    async check() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("no answer in time")), STORAGE_CHECK_TIMEOUT_MS);
      });
      try {
        await Promise.race([storage.currentRevision(), timeout]);
      } catch (err) {
        // The store's own error may name its addresses: kept for the log, out of the answer.
        throw new Error(`${name} did not answer`, { cause: err });
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
      if (stopping()) throw new Error("process is shutting down");
    },
  };
}

const HEALTH_PATH = /^\/(?:livez|readyz|healthz)(?:[/?]|$)/;

/**
 * A health probe (any method on /livez, /readyz, /healthz or one of their checks, as they are
 * served): answered even while stopping, as kube-apiserver exempts these paths whatever the method.
 */
export function isHealthProbe(url: string | undefined): boolean {
  return url !== undefined && HEALTH_PATH.test(url);
}

/**
 * /livez, /readyz and /healthz, answered as kube-apiserver's (k8s.io/apiserver healthz) are:
 * - every check passes: 200 `ok`; with `?verbose`, one `[+]name ok` line each, then
 *   `<endpoint> check passed`;
 * - one fails: 500, always verbose, failures as `[-]name failed: reason withheld` (the reason goes
 *   to the server log), then `<endpoint> check failed`;
 * - `?exclude=NAME` (repeatable) skips a check, listed as `[+]name excluded: ok`; a name that is
 *   no check gives a `warn: some health checks cannot be excluded: ...` line;
 * - `/<endpoint>/NAME` runs one check: 200 `ok`, or 500 `internal server error: <message>`.
 * /livez has only `ping`: restarting the server does not bring storage back. /readyz also has
 * `shutdown` (last, as kube-apiserver lists it), failing once `stopping()`.
 * Every method is answered alike, as kube-apiserver's handlers are registered on its mux for any
 * method: POST /readyz is a probe too. The handlers read nothing of the request but its path and
 * query and change nothing, so no method does more than read health; HEAD gets no body (node).
 */
export function registerHealthRoutes(
  app: FastifyInstance,
  storage: HealthCheck,
  stopping: () => boolean,
  /** Who asks (anonymous without credentials), before any check runs: for the audit log, and 401 for a bad key. */
  identify: onRequestHookHandler,
): void {
  const sets: Record<string, HealthCheck[]> = {
    livez: [ping],
    readyz: [ping, storage, shutdownCheck(stopping)],
    healthz: [ping, storage],
  };
  for (const [endpoint, checks] of Object.entries(sets)) {
    anyMethod(app, `/${endpoint}`, identify, async (request, reply) => {
      const query = new URL(request.url, "http://x").searchParams;
      const { status, text } = await runChecks(app, endpoint, checks, query);
      return plainText(reply, status).header("cache-control", "no-cache").send(text);
    });
    for (const one of checks) {
      anyMethod(app, `/${endpoint}/${one.name}`, identify, async (_request, reply) => {
        const failure = await failureOf(app, endpoint, one);
        if (failure === undefined) return plainText(reply, 200).send("ok");
        return plainText(reply, 500).send(`internal server error: ${failure.message}\n`);
      });
    }
  }
}

/** GET (with fastify's HEAD route, which drops the body) and every other method fastify routes. */
function anyMethod(
  app: FastifyInstance,
  url: string,
  onRequest: onRequestHookHandler,
  handler: RouteHandlerMethod,
): void {
  app.get(url, { onRequest }, handler);
  const others = app.supportedMethods.filter((m) => m !== "GET" && m !== "HEAD");
  app.route({ method: others, url, onRequest, handler });
}

function plainText(reply: FastifyReply, status: number): FastifyReply {
  return reply.code(status).type("text/plain; charset=utf-8").header("x-content-type-options", "nosniff");
}

/** Runs one check: undefined when it passes, else its error (logged with its cause). */
async function failureOf(app: FastifyInstance, endpoint: string, c: HealthCheck): Promise<Error | undefined> {
  try {
    await c.check();
    return undefined;
  } catch (thrown) {
    const err = thrown instanceof Error ? thrown : new Error(String(thrown));
    const cause = err.cause instanceof Error ? err.cause.message : undefined;
    app.log.warn({ check: c.name, err: err.message, cause }, `${endpoint} check failed`);
    return err;
  }
}

async function runChecks(
  app: FastifyInstance,
  endpoint: string,
  checks: readonly HealthCheck[],
  query: URLSearchParams,
): Promise<{ status: number; text: string }> {
  const excluded = new Set(query.getAll("exclude"));
  const lines = await Promise.all(
    checks.map(async (c) => {
      if (excluded.delete(c.name)) return { ok: true, line: `[+]${c.name} excluded: ok` };
      const ok = (await failureOf(app, endpoint, c)) === undefined;
      return { ok, line: ok ? `[+]${c.name} ok` : `[-]${c.name} failed: reason withheld` };
    }),
  );
  const failed = lines.some((l) => !l.ok);
  if (!failed && !query.has("verbose")) return { status: 200, text: "ok" };
  const out = lines.map((l) => `${l.line}\n`);
  if (excluded.size > 0) {
    const names = [...excluded].sort().map((n) => JSON.stringify(n));
    out.push(`warn: some health checks cannot be excluded: no matches for ${names.join(",")}\n`);
  }
  out.push(`${endpoint} check ${failed ? "failed" : "passed"}\n`);
  return { status: failed ? 500 : 200, text: out.join("") };
}
