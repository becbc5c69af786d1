/**
 * Structured logs: JSON lines on stderr (pino), a request id per request (taken from a sane
 * incoming `X-Request-Id`, otherwise made here, and returned in the response's `X-Request-Id`),
 * and one access line per request at info. The access line carries the method, the path without
 * its query, the user name, the code, the duration and the response size: never a header, a
 * body or a query, so never a key or a secret value.
 */
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { type Logger, pino } from "pino";
import type { RequestDone } from "./request-done.js";
import { workerNumber } from "./worker-number.js";

const REQUEST_ID_HEADER = "x-request-id";
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Unique per process start; the counter makes ids unique within it without randomness per request. */
const ID_PREFIX = randomBytes(6).toString("hex");
let lastId = 0;

/** The caller's id when it is short and plain, otherwise a new one. */
export function requestIdOf(headers: IncomingHttpHeaders): string {
  const given = headers[REQUEST_ID_HEADER];
  if (typeof given === "string" && SANE_ID.test(given)) return given;
  lastId++;
  return `${ID_PREFIX}-${lastId.toString(36)}`;
}

/** The server's logger: JSON on stderr, ISO timestamps; a worker's lines name it (`worker`: 1…N). */
export function createLogger(level: string): Logger {
  const worker = workerNumber();
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      base: worker === undefined ? { pid: process.pid } : { pid: process.pid, worker },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}

/** fastify options that make it log through `logger` with our request ids and no built-in request lines. */
export function loggingOptions(logger: Logger) {
  return {
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "requestId" }),
    genReqId: (req: { headers: IncomingHttpHeaders }) => requestIdOf(req.headers),
  };
}

declare module "fastify" {
  interface FastifyRequest {
    /** The authenticated caller's name, for the access line. */
    userName?: string;
  }
}

/** Returns the request id on every response and writes the access line. */
export function installRequestLog(app: FastifyInstance, requestDone: RequestDone, logger: Logger): void {
  app.decorateRequest("userName", undefined);
  app.addHook("onRequest", (request, reply, done) => {
    // On the raw response: watches write their head themselves, and writeHead keeps what is set here.
    reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
    done();
  });
  requestDone.add((request, reply) => {
    if (logger.isLevelEnabled("info")) {
      const length = reply.raw.getHeader("content-length");
      request.log.info(
        {
          method: request.method,
          path: request.url.split("?")[0],
          user: request.userName ?? "",
          code: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 100) / 100,
          bytes: length === undefined ? undefined : Number(length),
        },
        "request",
      );
    }
  });
}
