import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import { sendError } from "./respond.js";

/**
 * Answers to requests that never reach a route, as Kubernetes `Status` bodies instead of
 * fastify's or Node's own:
 * - frameworkErrors: a path whose percent-encoding does not decode (`/teams/%c0%ae`), or
 *   past the router's parameter length: 400;
 * - clientError: what Node's HTTP parser refuses itself (headers over 16 KiB: 431; a
 *   request line or header it cannot parse: 400; headers not complete in time: 408). The
 *   socket is in an unknown state then, so the answer says `Connection: close` and closes it:
 *   a keep-alive client must not send its next request down a connection that is gone.
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
  const body = JSON.stringify({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason: code === 408 ? "Timeout" : code === 400 ? "BadRequest" : "",
    code,
  });
  socket.end(
    `HTTP/1.1 ${code} ${STATUS_CODES[code]}\r\nConnection: close\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

function clientErrorCode(code: string | undefined): number {
  if (code === "HPE_HEADER_OVERFLOW") return 431;
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return 408;
  return 400;
}
