/**
 * What the oracle compares of an answer: the status code; of a Status, its reason and its
 * causes' field and type; of an object, list or watch event, the shape of its keys. Values that
 * differ between any two servers by nature (uid, resourceVersion, timestamps, the managed fields'
 * entries) are never compared, nor are messages, which are written for people, unless the case
 * asks for them (a Status whose wording is the point: how a 422 names its fields).
 */
import type { Answer } from "./targets.js";

export interface Normalised {
  code: number;
  reason?: string;
  /** `field type` of each cause, sorted; with `messages`, `field type: message`. */
  causes?: string[];
  /** A Status's message, with `messages`. */
  message?: string;
  kind?: string;
  /** Key paths of the returned object (`spec.users[]`), sorted; lists by their items' union. */
  shape?: string[];
  /** How many Warning headers were sent (their text is for people). */
  warnings: number;
  /** A watch: each event's type and its object's kind and shape. */
  events?: { type: string; kind?: string; shape: string[] }[];
}

export interface NormaliseOptions {
  /**
   * A kind whose status a controller of the platform writes when it likes (a Cluster's health),
   * which kube-apiserver has no controller for: its status and the watch events of those writes
   * are left out, as when they land is a race.
   */
  withoutStatus?: boolean;
  /** Compare a Status's message and its causes' messages too. */
  messages?: boolean;
}

export function normalise(answer: Answer, options: NormaliseOptions = {}): Normalised {
  const out: Normalised = { code: answer.status, warnings: answer.warnings.length };
  const shape = (value: unknown) =>
    options.withoutStatus ? shapeOf(value).filter((p) => !/^(items\[\]\.)?status(\.|$)/.test(p)) : shapeOf(value);
  if (answer.events && answer.status === 200) {
    out.events = answer.events
      .filter((e) => !(options.withoutStatus && e?.type === "MODIFIED"))
      .map((e) =>
        // An ERROR event carries a Status: compared as any Status is.
        e?.object?.kind === "Status"
          ? { type: e.type, kind: "Status", shape: [`${e.object.code} ${e.object.reason}`] }
          : { type: e?.type, kind: e?.object?.kind, shape: shape(e?.object) },
      );
    return out;
  }
  const body = answer.json;
  if (!body || typeof body !== "object") return out;
  out.kind = body.kind;
  if (body.kind !== "Status") {
    out.shape = shape(body);
    return out;
  }
  // A Status is compared by what clients act on; its details' other keys and its message are for people.
  if (body.reason !== undefined) out.reason = body.reason;
  if (options.messages) out.message = body.message;
  // biome-ignore lint/suspicious/noExplicitAny: a Status cause as sent
  const causes: any[] = body.details?.causes ?? [];
  const cause = (c: { field?: string; reason?: string; message?: string }) =>
    `${c.field ?? ""} ${c.reason ?? ""}${options.messages ? `: ${c.message ?? ""}` : ""}`;
  if (causes.length) out.causes = causes.map(cause).sort();
  return out;
}

/** Where the shape stops: past these, keys are the server's bookkeeping, not the object's. */
const OPAQUE = new Set(["metadata.managedFields[]", "items[].metadata.managedFields[]"]);

/**
 * The key paths of a value. An empty string or an empty object is no key: Kubernetes' Go types
 * drop both (omitempty), so no client tells them from an absent field.
 */
export function shapeOf(value: unknown, path = ""): string[] {
  if (OPAQUE.has(path)) return [path];
  if (value === "" || (isObject(value) && Object.keys(value).length === 0)) return [];
  if (Array.isArray(value)) {
    const inner = new Set(value.flatMap((v) => shapeOf(v, `${path}[]`)));
    return inner.size ? [...inner].sort() : [`${path}[]`];
  }
  if (isObject(value)) {
    return [...new Set(Object.entries(value).flatMap(([k, v]) => shapeOf(v, path ? `${path}.${k}` : k)))].sort();
  }
  return [path];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
