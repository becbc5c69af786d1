/**
 * Structured logs: JSON lines on stderr (pino), a request id per request (taken from a sane
 * incoming `X-Request-Id`, otherwise made here, and returned in the response's `X-Request-Id`),
 * and one access line per request at info. The access line carries the method, the path without
 * its query, the user name, the code, the duration and the response size: never a header, a
 * body or a query, so never a key or a secret value.
 */
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { type Logger, pino } from "pino";
import type { RequestPipeline } from "./request-pipeline.js";
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

/** The server's logger: JSON on stderr (or `destination`), ISO timestamps; a worker's lines name it (`worker`: 1…N). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const worker = workerNumber();
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      base: worker === undefined ? { pid: process.pid } : { pid: process.pid, worker },
    },
    destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

/** Where the front door keeps a request's id for fastify (loggingOptions' genReqId). */
const REQUEST_ID = Symbol("requestId");

/**
 * Gives the request its id, once, at the front door (front-door.ts): on the response's
 * X-Request-Id, whichever branch answers (watches write their head themselves, and writeHead
 * keeps what is set here), and kept on the request for fastify's request.id.
 */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const id = requestIdOf(req.headers);
  (req as IncomingMessage & { [REQUEST_ID]?: string })[REQUEST_ID] = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

/** The id assignRequestId gave the request; undefined when it did not pass the front door. */
export function assignedRequestId(req: IncomingMessage): string | undefined {
  return (req as IncomingMessage & { [REQUEST_ID]?: string })[REQUEST_ID];
}

/** fastify options that make it log through `logger` with our request ids and no built-in request lines. */
export function loggingOptions(logger: Logger) {
  return {
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "requestId" }),
    // The front door's id; a request injected without it (tests: fastify.inject) gets one here.
    genReqId: (req: IncomingMessage) => assignedRequestId(req) ?? requestIdOf(req.headers),
  };
}

declare module "fastify" {
  interface FastifyRequest {
    /** The authenticated caller's name, for the access line. */
    userName?: string;
  }
}

/** The access line of every request, whichever branch answered it (request-pipeline.ts). */
export function installRequestLog(app: FastifyInstance, requests: RequestPipeline, logger: Logger): void {
  app.decorateRequest("userName", undefined);
  requests.join({
    done(request, answer) {
      if (!logger.isLevelEnabled("info")) return;
      const length = answer.raw.getHeader("content-length");
      logger.info(
        {
          // What fastify's request logger binds (loggingOptions' requestIdLogLabel).
          requestId: request.id,
          method: request.method,
          path: request.url.split("?")[0],
          user: request.userName ?? "",
          code: answer.statusCode,
          durationMs: Math.round(answer.elapsedTime * 100) / 100,
          bytes: length === undefined ? undefined : Number(length),
        },
        "request",
      );
    },
  });
}
