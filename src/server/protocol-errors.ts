import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import { writeStatusToSocket } from "./raw-status.js";
import { sendError } from "./respond.js";

/**
 * Answers to requests that never reach a route, as Kubernetes `Status` bodies instead of
 * fastify's or Node's own:
 * - frameworkErrors: a path whose percent-encoding does not decode (`/teams/%c0%ae`), or
 *   past the router's parameter length: 400;
 * - clientError: what Node's HTTP parser refuses itself (headers over 16 KiB: 431; a
 *   request line or header it cannot parse: 400; headers not complete in time: 408). The
 *   socket is in an unknown state then, so the answer says `Connection: close` and closes it:
 *   a keep-alive client must not send its next request down a connection that is gone. A HEAD
 *   request's answer has no body (raw-status.ts).
 */
export function frameworkErrors(error: Error, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const code = (error as { code?: string }).code;
  const problem = code === "FST_ERR_BAD_URL" ? "it holds a malformed percent-encoding" : "it cannot be routed";
  return sendError(reply, errors.badRequest(`the request path is not valid: ${problem}`));
}

/** Node's `clientError`: writes the answer by hand (there is no response object) and closes. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  // A response already under way on this socket cannot be followed by another: just close.
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (err.code === "ECONNRESET" || !socket.writable || answering) {
    socket.destroy();
    return;
  }
  const code = clientErrorCode(err.code);
  const message =
    code === 431
      ? "the request headers are too large"
      : code === 408
        ? "the request headers were not received in time"
        : "the request could not be parsed as HTTP";
  writeStatusToSocket(
    socket,
    refusedMethod(err),
    code,
    code === 408 ? "Timeout" : code === 400 ? "BadRequest" : "",
    message,
  );
}

/**
 * The method of the refused request, read from the bytes node's parser refused (`rawPacket`)
 * when they begin with its request line: the parser tells the method only once the headers are
 * complete. When they do not, the method is unknown and the answer has its body; the connection
 * closes after it either way. So it is for headers that never came (408) and for headers over
 * the limit (431): over 16 KiB, they come in more than one TLS record (16 KiB at most each), and
 * the parser refuses a later one.
 */
function refusedMethod(err: Error): string | undefined {
  const raw = (err as { rawPacket?: unknown }).rawPacket;
  if (!Buffer.isBuffer(raw)) return undefined;
  return /^([A-Z]+) /.exec(raw.subarray(0, 32).toString("latin1"))?.[1];
}

function clientErrorCode(code: string | undefined): number {
  if (code === "HPE_HEADER_OVERFLOW") return 431;
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return 408;
  return 400;
}
