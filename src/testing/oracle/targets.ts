/**
 * The two servers the oracle asks: a real kube-apiserver serving the platform's kinds as CRDs,
 * and the platform. Both are sent the same bytes over HTTPS; only the path prefix and the
 * credentials differ.
 */
import { request } from "node:https";

/**
 * One request of the corpus, its path relative to the group version (`teams/a`,
 * `namespaces/n/sharedsecrets`), or from the server's root when it starts with `/` (`/api/v1/namespaces`).
 */
export interface Step {
  method: string;
  path: string;
  query?: Record<string, string>;
  /** Sent as JSON unless `contentType` says YAML or `raw` is given. */
  body?: unknown;
  /** Bytes sent as they are (duplicate keys, broken JSON). */
  raw?: string;
  contentType?: string;
  /** Sent to one side only: what the other side has no need of (a namespace kube wants created). */
  only?: TargetName;
}

export interface Answer {
  status: number;
  warnings: string[];
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, as any client reads them
  json: any;
  /** A watch's events, one per line of its body. */
  // biome-ignore lint/suspicious/noExplicitAny: as json
  events?: any[];
  text: string;
}

export type TargetName = "kube" | "platform";

export interface Target {
  name: TargetName;
  send(step: Step): Promise<Answer>;
}

export interface TargetAccess {
  /** Scheme, host and port. */
  url: string;
  /** The path before `/apis/<group>/<version>` (empty for kube-apiserver). */
  prefix: string;
  caPem: string;
  credentials: { token: string } | { certPem: string; keyPem: string };
}

export function target(name: TargetName, access: TargetAccess, groupVersion: string): Target {
  return {
    name,
    send: (step) =>
      send(access, `${access.prefix}${step.path.startsWith("/") ? "" : `/apis/${groupVersion}/`}${step.path}`, step),
  };
}

function send(access: TargetAccess, path: string, step: Omit<Step, "path">): Promise<Answer> {
  const url = new URL(path, access.url);
  for (const [k, v] of Object.entries(step.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { accept: "application/json" };
  const c = access.credentials;
  if ("token" in c) headers.authorization = `Bearer ${c.token}`;
  const payload =
    step.raw ?? (step.body === undefined ? undefined : step.body === null ? "null" : JSON.stringify(step.body));
  if (payload !== undefined) {
    headers["content-type"] = step.contentType ?? "application/json";
    headers["content-length"] = String(Buffer.byteLength(payload));
  }
  const tls = "certPem" in c ? { cert: c.certPem, key: c.keyPem } : {};
  return new Promise((resolve, reject) => {
    const req = request(url, { method: step.method, headers, ca: access.caPem, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const warning = res.headers.warning;
        resolve({
          status: res.statusCode ?? 0,
          warnings: warning === undefined ? [] : [warning].flat().flatMap(splitWarnings),
          json: parse(text),
          events: step.query?.watch === "true" ? text.split("\n").filter(Boolean).map(parse) : undefined,
          text,
        });
      });
    });
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** One `Warning` header may carry several warnings: `299 - "a", 299 - "b"`. */
function splitWarnings(header: string): string[] {
  return [...header.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? "");
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
