import { errors } from "../api/errors.js";

/** What a response should be: its serialisation, and whether it is a meta.k8s.io Table. */
export interface ResponseFormat {
  encoding: "json" | "yaml";
  table: boolean;
}

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

const SERVED_MEDIA_TYPES = ["application/json", "application/yaml", "application/json;as=Table;v=v1;g=meta.k8s.io"];

export function parseMediaRange(value: string): MediaRange {
  const [type, ...rest] = value.split(";");
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf("=");
    if (eq > 0)
      params[p.slice(0, eq).trim().toLowerCase()] = p
        .slice(eq + 1)
        .trim()
        .replace(/^"|"$/g, "");
  }
  return { type: (type ?? "").trim().toLowerCase(), params };
}

/**
 * Picks the first Accept entry the server can produce (clients list their preference in
 * order; kubectl asks for a Table first, then plain JSON). Nothing producible: 406.
 */
export function negotiateResponse(accept: string | undefined, tableAllowed: boolean): ResponseFormat {
  if (!accept || accept.trim() === "") return { encoding: "json", table: false };
  for (const part of accept.split(",")) {
    const { type, params } = parseMediaRange(part);
    if (params.as) {
      if (
        params.as === "Table" &&
        params.g === "meta.k8s.io" &&
        (params.v === "v1" || params.v === "v1beta1") &&
        type === "application/json"
      ) {
        if (tableAllowed) return { encoding: "json", table: true };
      }
      continue; // PartialObjectMetadata and other conversions are not served
    }
    if (type === "application/json" || type === "application/*" || type === "*/*" || type === "*") {
      return { encoding: "json", table: false };
    }
    if (type === "application/yaml") return { encoding: "yaml", table: false };
  }
  throw errors.notAcceptable(SERVED_MEDIA_TYPES);
}
