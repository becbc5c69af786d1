import type { ServerResponse } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { Status } from "../api/errors.js";

/**
 * Kubernetes `Status` errors written straight to node's response or socket: for what answers
 * before (and without) fastify (the in-flight count, the cluster gateway), and for an upgrade
 * request, where there is only the socket.
 */
function statusBody(code: number, reason: Status["reason"], message: string, details?: Status["details"]): string {
  const status: Status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
  return JSON.stringify(status);
}

/** The Retry-After header of a Status that asks the client to come back (client-go waits that long, then retries). */
function retryAfter(details: Status["details"]): Record<string, string> {
  const seconds = details?.retryAfterSeconds;
  return seconds === undefined ? {} : { "retry-after": String(seconds) };
}

/** Writes the Status and returns the bytes of its body. */
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
  return Buffer.byteLength(body);
}

/** The same for an upgrade request: an HTTP/1.1 response on the raw socket, which then closes. */
export function writeStatusToSocket(
  socket: Duplex,
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
  socket.end(
    `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ""}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
  return length;
}
