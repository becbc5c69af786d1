import type { ServerResponse } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { failureStatus, type Status } from "../api/errors.js";

/**
 * Kubernetes `Status` errors written straight to node's response or socket: for what answers
 * before (and without) fastify (the in-flight count, the cluster gateway), and for an upgrade
 * request or a request node's parser refused, where there is only the socket.
 *
 * The answer to a HEAD request has no body (RFC 9110, 9.3.2): the client reads none, so bytes
 * after the header block would be taken for the start of the next answer on the connection.
 * Content-Length still says how long the body of a GET would be, as HEAD answers do.
 */
function statusBody(code: number, reason: Status["reason"], message: string, details?: Status["details"]): string {
  return JSON.stringify(failureStatus(code, reason, message, details));
}

/** The Retry-After header of a Status that asks the client to come back (client-go waits that long, then retries). */
function retryAfter(details: Status["details"]): Record<string, string> {
  const seconds = details?.retryAfterSeconds;
  return seconds === undefined ? {} : { "retry-after": String(seconds) };
}

/**
 * Writes the Status and returns the bytes of its body sent: none for a HEAD request, whose body
 * node's response leaves out itself.
 */
export function writeStatus(
  res: ServerResponse,
  code: number,
  reason: Status["reason"],
  message: string,
  details?: Status["details"],
): number {
  const body = statusBody(code, reason, message, details);
  res.writeHead(code, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...retryAfter(details),
  });
  res.end(body);
  return res.req?.method === "HEAD" ? 0 : Buffer.byteLength(body);
}

/**
 * The same on a raw socket (an upgrade request, a request node's parser refused): an HTTP/1.1
 * response, after which the socket closes. `method` is the request's (undefined when unknown),
 * since nothing here knows it otherwise: a HEAD gets the header block alone. Returns the bytes
 * of the body sent.
 */
export function writeStatusToSocket(
  socket: Duplex,
  method: string | undefined,
  code: number,
  reason: Status["reason"],
  message: string,
  details?: Status["details"],
): number {
  const body = statusBody(code, reason, message, details);
  const length = Buffer.byteLength(body);
  const extra = Object.entries(retryAfter(details))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  const head = `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ""}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}Connection: close\r\n\r\n`;
  if (method === "HEAD") {
    socket.end(head);
    return 0;
  }
  socket.end(head + body);
  return length;
}
