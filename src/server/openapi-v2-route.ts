import { createHash } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import type { Registry } from "../registry/registry.js";
import { parseMediaRange } from "./negotiation.js";
import { swaggerDocument } from "./openapi-v2.js";
import { encodeSwaggerDocument } from "./openapi-v2-proto.js";

/** The protobuf media type kube-openapi answers with, and the older spelling kubectl up to 1.26 asks for. */
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
export const OPENAPI_V2_PROTOBUF_DEPRECATED = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

interface Representation {
  contentType: string;
  body: Buffer;
}

/**
 * GET /openapi/v2 as kube-openapi's handler serves it: JSON or gnostic protobuf by the Accept
 * header (entries in order of their q; `*` matches JSON first), 406 for anything else; one ETag
 * for both forms (the SHA-512 of the JSON, upper-case hex), 304 for a matching If-None-Match,
 * `Vary: Accept`. Each form is built on its first request, once: the kinds are fixed for a
 * server's lifetime, and only older clients ask (a server start does not pay for it).
 */
export function openApiV2Handler(registry: Registry): (request: FastifyRequest, reply: FastifyReply) => unknown {
  let json: { body: Buffer; etag: string } | undefined;
  const jsonForm = () => {
    if (!json) {
      const body = Buffer.from(JSON.stringify(swaggerDocument(registry)));
      json = { body, etag: `"${createHash("sha512").update(body).digest("hex").toUpperCase()}"` };
    }
    return json;
  };
  let protobuf: Buffer | undefined;
  const forms: Array<{ type: string; get: () => Representation }> = [
    { type: "application/json", get: () => ({ contentType: "application/json", body: jsonForm().body }) },
    ...[OPENAPI_V2_PROTOBUF_DEPRECATED, OPENAPI_V2_PROTOBUF].map((type) => ({
      type,
      get: () => {
        protobuf ??= encodeSwaggerDocument(JSON.parse(jsonForm().body.toString()) as Record<string, unknown>);
        return { contentType: OPENAPI_V2_PROTOBUF, body: protobuf };
      },
    })),
  ];
  return (request, reply) => {
    reply.header("vary", "Accept");
    const chosen = pick(request.headers.accept, forms);
    if (!chosen) throw errors.notAcceptable(forms.map((f) => f.type));
    const { contentType, body } = chosen.get();
    const { etag } = jsonForm();
    reply.header("etag", etag);
    const inm = request.headers["if-none-match"];
    if (inm?.split(",").some((t) => t.trim() === etag || t.trim() === "*")) return reply.code(304).send();
    return reply.code(200).header("content-type", contentType).send(body);
  };
}

function pick<T extends { type: string }>(accept: string | undefined, forms: T[]): T | undefined {
  const ranges = (accept?.trim() ? accept : "*/*")
    .split(",")
    .map((part, index) => {
      const range = parseMediaRange(part);
      const q = range.params.q === undefined ? 1 : Number(range.params.q);
      return { type: range.type, q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const range of ranges) {
    const [rangeType = "", rangeSub = ""] = (range.type === "*" ? "*/*" : range.type).split("/");
    const form = forms.find((f) => {
      const [type, sub] = f.type.split("/");
      return (rangeType === "*" || rangeType === type) && (rangeSub === "*" || rangeSub === sub);
    });
    if (form) return form;
  }
  return undefined;
}
