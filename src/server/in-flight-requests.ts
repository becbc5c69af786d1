/**
 * Graceful shutdown of the HTTPS server, as kube-apiserver's: once the server stops, no new
 * connection is accepted, a request or upgrade arriving on a connection already open is refused
 * with a 429 TooManyRequests Status, Retry-After and Connection: close (kube-apiserver's answer
 * with --shutdown-send-retry-after: client-go and kubectl wait and retry, on a new connection and
 * so on another replica, and it is not a 5xx that error-rate alerts count), and the
 * requests in flight are given a bounded grace period to finish, each answer closing its
 * connection. Only then does the server close the store (start-server.ts), so a request in
 * flight never finds it closed; one that outlives the grace period is cut off.
 *
 * Health probes are the exception, as in kube-apiserver: /readyz, /livez and /healthz (and their
 * single checks) are still answered on a connection still open, so that /readyz reports the
 * `shutdown` check failing (health.ts) while /livez and /healthz stay 200: the orchestrator stops
 * sending traffic without killing the process as unhealthy while it drains.
 *
 * Every request passes admit() first, at the front door (front-door.ts): before the gateway, the
 * fast branches and fastify, so all of them are counted.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { errors } from "../api/errors.js";
import { isHealthProbe } from "./health.js";
import { writeStatusToSocket } from "./raw-status.js";

/**
 * Seconds a refused client is asked to wait before it tries again. kube-apiserver asks for 5; its
 * listener stays open meanwhile, where this one is closed, so the retry can only reach another
 * replica and a longer wait would only delay it.
 */
const RETRY_AFTER_SECONDS = 1;
const SHUTTING_DOWN = "the server is shutting down, try again later";

export class InFlightRequests {
  private readonly open = new Set<ServerResponse>();
  private draining = false;
  private idle: (() => void) | undefined;
  /** One listener for every response (`this` is the response): nothing allocated per request. */
  private readonly release: (this: ServerResponse) => void;

  constructor() {
    const self = this;
    this.release = function (this: ServerResponse) {
      self.done(this);
    };
  }

  /**
   * Counts the request until its response ends; false (answered with 429) once the server is
   * stopping, unless it is a health probe (answered, closing its connection like every answer then).
   */
  admit(res: ServerResponse): boolean {
    if (this.draining) {
      if (!isHealthProbe(res.req.url)) {
        refuse(res);
        return false;
      }
      res.setHeader("connection", "close");
    }
    this.open.add(res);
    res.on("close", this.release);
    return true;
  }

  /** The same for an upgrade request (its socket outlives the request: the gateway ends it on stop). */
  admitUpgrade(req: IncomingMessage, socket: Duplex): boolean {
    if (!this.draining) return true;
    writeStatusToSocket(socket, req.method, 429, "TooManyRequests", SHUTTING_DOWN, {
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });
    return false;
  }

  /**
   * Stops the server: no new connections, idle ones closed, new requests refused, answers to
   * those in flight close their connection. `endStreams` then ends the long-running responses
   * (watches), which would otherwise hold the server for the whole grace period. Resolves once
   * every request in flight has ended or `graceMs` has passed, and then cuts any connection
   * still open; with how many requests were cut off.
   */
  async drain(server: Server, graceMs: number, endStreams: () => void): Promise<number> {
    this.draining = true;
    for (const res of this.open) if (!res.headersSent) res.setHeader("connection", "close");
    // Also closes the connections that are idle now (node >= 19); fastify's close() finds it closed.
    server.close(() => {});
    endStreams();
    if (this.open.size > 0) await this.endedOrAfter(graceMs);
    const cut = this.open.size;
    server.closeAllConnections();
    return cut;
  }

  private endedOrAfter(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.idle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private done(res: ServerResponse): void {
    this.open.delete(res);
    if (this.open.size === 0) this.idle?.();
  }
}

function refuse(res: ServerResponse): void {
  const body = JSON.stringify(errors.tooManyRequests(SHUTTING_DOWN, RETRY_AFTER_SECONDS).status);
  res.writeHead(429, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "retry-after": String(RETRY_AFTER_SECONDS),
    connection: "close",
  });
  res.end(body);
}
