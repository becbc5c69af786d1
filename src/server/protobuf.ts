import { errors } from "../api/errors.js";

/**
 * Just enough of Kubernetes' protobuf envelope to read the review requests that kubectl's
 * typed clients send as `application/vnd.kubernetes.protobuf` (they do not fall back to
 * JSON on 415). Responses are JSON, which those clients accept too.
 */

export const PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf";
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

/** Length-delimited fields of a message by field number (scalars other than strings/messages are skipped). */
export function messageFields(buf: Buffer): Map<number, Buffer[]> {
  const fields = new Map<number, Buffer[]>();
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (pos >= buf.length) throw errors.badRequest("truncated protobuf body");
      const b = buf[pos++] as number;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
    throw errors.badRequest("malformed protobuf varint");
  };
  while (pos < buf.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (wire === 0) varint();
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const len = varint();
      if (pos + len > buf.length) throw errors.badRequest("truncated protobuf body");
      const list = fields.get(field) ?? [];
      list.push(buf.subarray(pos, pos + len));
      fields.set(field, list);
      pos += len;
    } else throw errors.badRequest(`unsupported protobuf wire type ${wire}`);
  }
  return fields;
}

export function stringField(fields: Map<number, Buffer[]>, n: number): string | undefined {
  return fields.get(n)?.[0]?.toString("utf8");
}

export function messageField(fields: Map<number, Buffer[]>, n: number): Map<number, Buffer[]> | undefined {
  const raw = fields.get(n)?.[0];
  return raw ? messageFields(raw) : undefined;
}

/** Unwraps runtime.Unknown: {apiVersion, kind} and the raw bytes of the object message. */
export function decodeEnvelope(body: Buffer): { apiVersion?: string; kind?: string; raw: Buffer } {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC))
    throw errors.badRequest("protobuf body lacks the k8s envelope prefix");
  const unknown = messageFields(body.subarray(MAGIC.length));
  const typeMeta = messageField(unknown, 1);
  return {
    apiVersion: typeMeta && stringField(typeMeta, 1),
    kind: typeMeta && stringField(typeMeta, 2),
    raw: unknown.get(2)?.[0] ?? Buffer.alloc(0),
  };
}
