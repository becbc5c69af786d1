import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { stringify } from "yaml";
import { ApiError, errors } from "../api/errors.js";
import { storageOutageToApi } from "../registry/storage-errors.js";
import type { ResponseFormat } from "./negotiation.js";
import { warningHeaders } from "./warning-headers.js";

/** Serialises a body as the negotiated format asks. */
function serialize(body: unknown, format: Pick<ResponseFormat, "encoding">): { payload: string; contentType: string } {
  if (format.encoding === "yaml")
    return { payload: stringify(body, { aliasDuplicateObjects: false }), contentType: "application/yaml" };
  return { payload: JSON.stringify(body), contentType: "application/json" };
}

export function send(
  reply: FastifyReply,
  code: number,
  body: unknown,
  format: Pick<ResponseFormat, "encoding">,
  warnings: readonly string[] = [],
): FastifyReply {
  const { payload, contentType } = serialize(body, format);
  if (warnings.length) reply.header("warning", warningHeaders(warnings));
  return reply.code(code).type(contentType).send(payload);
}

/**
 * A response whose JSON is already encoded (the raw list path, a write's stored bytes), warnings
 * as send() would: one buffer, or pieces streamed as they are produced with the exact length
 * announced (not chunked).
 */
export function sendJsonBytes(
  reply: FastifyReply,
  payload: Buffer | Iterable<Buffer>,
  byteLength: number,
  warnings: readonly string[] = [],
  code = 200,
): FastifyReply {
  if (warnings.length) reply.header("warning", warningHeaders(warnings));
  reply.code(code).type("application/json");
  if (Buffer.isBuffer(payload)) return reply.send(payload);
  return reply.header("content-length", byteLength).send(Readable.from(payload, { objectMode: false }));
}

/** Any thrown value → a Status response; unexpected errors are logged and become a bare 500 (no stack reaches a client). */
export function toApiError(err: unknown, log?: { error(obj: unknown, msg: string): void }): ApiError {
  if (err instanceof ApiError) return err;
  // Reads (the cache's sync, a fallback read) reach here unmapped: storage down is a 503 on every verb.
  const outage = storageOutageToApi(err);
  if (outage) return outage;
  log?.error({ err }, "internal error");
  return errors.internal("an unexpected error occurred; see the server log");
}

export function sendError(
  reply: FastifyReply,
  err: unknown,
  format: Pick<ResponseFormat, "encoding"> = { encoding: "json" },
): FastifyReply {
  const apiErr = toApiError(err, reply.log);
  for (const [k, v] of Object.entries(apiErr.headers)) reply.header(k, v);
  return send(reply, apiErr.status.code, apiErr.status, format);
}
