import type { FastifyRequest } from "fastify";
import type { KubeObject } from "../api/object.js";
import { decodeObjectBody } from "./body.js";
import { parseMediaRange } from "./negotiation.js";
import { decodeEnvelope, messageField, messageFields, PROTOBUF_CONTENT_TYPE, stringField } from "./protobuf.js";

/**
 * The body of a review create (src/authz/reviews), decoded from the wire: JSON or YAML like any
 * object, or protobuf, which kubectl's typed client posts for these kinds only. What it says is
 * checked by the review kind's Store, like any create.
 */
export function decodeReviewBody(request: FastifyRequest): { value: KubeObject; duplicates?: string[] } {
  const raw = (request.body as Buffer | undefined) ?? Buffer.alloc(0);
  if (parseMediaRange(request.headers["content-type"] ?? "").type === PROTOBUF_CONTENT_TYPE)
    return { value: decodeProtobuf(raw) };
  const body = decodeObjectBody(request.headers["content-type"], raw);
  return { value: body.value as KubeObject, duplicates: body.duplicates };
}

/** Strings of a protobuf message, named by field number (1, 2, …) in `names`' order. */
function strings(m: Map<number, Buffer[]>, names: string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name, i) => {
      const v = stringField(m, i + 1);
      return v === undefined ? [] : [[name, v]];
    }),
  );
}

/** The reviews in protobuf (field numbers from k8s.io/api generated.proto); only the spec is read. */
function decodeProtobuf(raw: Buffer): KubeObject {
  const envelope = decodeEnvelope(raw);
  const obj = messageFields(envelope.raw);
  const body = { apiVersion: envelope.apiVersion, kind: envelope.kind, metadata: {} };
  const spec = messageField(obj, 2);
  if (envelope.kind === "SelfSubjectRulesReview") {
    // SelfSubjectRulesReview{spec=2: {namespace=1}}
    const namespace = spec && stringField(spec, 1);
    return { ...body, spec: namespace === undefined ? {} : { namespace } };
  }
  if (envelope.kind !== "SelfSubjectAccessReview") return body;
  if (!spec) return { ...body, spec: {} };
  // SelfSubjectAccessReview{spec=2: {resourceAttributes=1, nonResourceAttributes=2}}
  const ra = messageField(spec, 1);
  const nra = messageField(spec, 2);
  const resourceNames = ["namespace", "verb", "group", "version", "resource", "subresource", "name"];
  return {
    ...body,
    spec: {
      ...(ra ? { resourceAttributes: strings(ra, resourceNames) } : {}),
      ...(nra ? { nonResourceAttributes: strings(nra, ["path", "verb"]) } : {}),
    },
  };
}
