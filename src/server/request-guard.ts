import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { writeStatus, writeStatusToSocket } from "./raw-status.js";

/** Where an exception that escaped a request's handler is logged (the server's pino logger has this shape). */
export interface InternalErrorLog {
  error(fields: object, message: string): void;
}

/** What the client is told: nothing of the exception itself (it may name what the caller may not see). */
const MESSAGE = "an unexpected error occurred; see the server log";

/**
 * The last line of defence of a https server's `request` handler: an exception thrown by the
 * handler (a bug, a value nobody expected) ends that request alone with a 500 Status and one
 * log line, instead of reaching node's event loop and taking the process, and every client on
 * it, down. Handlers still answer their own errors; this is for those they did not foresee.
 */
export function guardRequest(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  log: InternalErrorLog,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    try {
      handler(req, res);
    } catch (err) {
      answerInternalError(req, res, err, log);
    }
  };
}

/** The same for the `upgrade` handler, whose answer goes on the raw socket. */
export function guardUpgrade(
  handler: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
  log: InternalErrorLog,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  return (req, socket, head) => {
    try {
      handler(req, socket, head);
    } catch (err) {
      answerInternalUpgradeError(req, socket, err, log);
    }
  };
}

/** Logs the exception and answers 500 when nothing was sent yet (else the response is cut: its start was wrong). */
export function answerInternalError(
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
  log: InternalErrorLog,
): void {
  logged(req, err, log);
  try {
    if (res.headersSent || res.destroyed) res.destroy();
    else writeStatus(res, 500, "InternalError", MESSAGE);
  } catch {
    res.destroy();
  }
}

export function answerInternalUpgradeError(
  req: IncomingMessage,
  socket: Duplex,
  err: unknown,
  log: InternalErrorLog,
): void {
  logged(req, err, log);
  try {
    if (socket.destroyed) return;
    writeStatusToSocket(socket, req.method, 500, "InternalError", MESSAGE);
  } catch {
    socket.destroy();
  }
}

function logged(req: IncomingMessage, err: unknown, log: InternalErrorLog): void {
  try {
    // The method and the path without its query (a query may carry values the log's readers may not see).
    log.error({ err, method: req.method, path: (req.url ?? "").split("?")[0] }, "request failed unexpectedly");
  } catch {
    // A logger that throws must not turn one failed request into a dead process either.
  }
}

/** For a process without a pino logger (the agent): one line on stderr. */
export const stderrLog: InternalErrorLog = {
  error(fields, message) {
    process.stderr.write(
      `${JSON.stringify({ level: "error", time: new Date().toISOString(), msg: message, ...serializable(fields) })}\n`,
    );
  },
};

function serializable(fields: object): object {
  const err = (fields as { err?: unknown }).err;
  if (!(err instanceof Error)) return fields;
  return { ...fields, err: { type: err.name, message: err.message, stack: err.stack } };
}
