/**
 * Hostile requests to what is not the management API: the cluster gateway (connected and
 * virtual clusters), the agent, the web console and single sign-on. Paths with escapes that
 * do not decode, encoded slashes and dots, Unicode; huge, repeated and odd headers; the hop
 * header of a loop; upgrades; no, bad or narrowly scoped credentials.
 */

import type { FuzzRequest } from "./hostile-requests.js";
import { oddName, pathSegment } from "./hostile-values.js";
import type { Rng } from "./prng.js";

/** Where a surface request goes: the platform's server, or the agent beside the cluster. */
export type FuzzSurface = "gateway" | "vcluster" | "agent" | "console" | "sso";

export interface SurfaceRequest extends FuzzRequest {
  surface: FuzzSurface;
  /** Whose credentials, beyond FuzzRequest's: a key scoped to pods of one namespace, or the agent's token. */
  credential: "admin" | "none" | "bad" | "scoped" | "direct";
}

/** Segments no reader may split or decode differently from another. */
const HOSTILE_SEGMENTS = [
  "%ZZ",
  "%E0%A4%A",
  "%",
  "%2F",
  "api%2Fv1",
  "%2e%2e",
  "%2E",
  "..",
  ".",
  "",
  "%00",
  "%c0%ae",
  "%F0%9F%98%80",
  "%ED%A0%80",
  "ü",
  "%25",
  "%252F",
];

/** Forwarded paths: real ones (so some are served) and ones built to be misread. */
const KUBE_PATHS = [
  "/api",
  "/apis",
  "/version",
  "/api/v1/namespaces/default/pods",
  "/api/v1/namespaces/default/pods/web-1",
  "/api/v1/namespaces/default/pods/web-1/log",
  "/api/v1/namespaces/kube-system/secrets",
  "/api/v1/namespaces/default/status",
  "/metrics",
  "/logs/",
  "/debug/pprof/",
  "/healthz",
  "/",
];

export function hostileSurfaceRequest(rng: Rng): SurfaceRequest {
  const surface = rng.pick<FuzzSurface>(["gateway", "gateway", "vcluster", "agent", "agent", "console", "sso"]);
  const credential =
    surface === "agent"
      ? rng.pick(["direct", "direct", "none", "bad", "admin"] as const)
      : rng.pick(["admin", "admin", "scoped", "none", "bad"] as const);
  const method = rng.pick(["GET", "GET", "GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]);
  const headers = hostileHeaders(rng);
  // Headers node's parser refuses are answered before the method is known, with a body: a HEAD
  // client cannot read that answer (protocol-errors.ts), so the huge ones go with other methods.
  // The same for a request line node cannot parse (a raw non-ASCII byte): HEADs send it escaped.
  if (method === "HEAD") delete headers["x-huge"];
  const raw = surfacePath(rng, surface);
  const path = method === "HEAD" ? raw.replaceAll("ü", "%C3%BC").replaceAll("日本", "%E6%97%A5%E6%9C%AC") : raw;
  // Upgrades are GETs (a HEAD that asks for one is answered with a body on the raw socket).
  if (rng.chance(0.1) && method === "GET" && (surface === "gateway" || surface === "vcluster" || surface === "agent")) {
    Object.assign(headers, {
      connection: "Upgrade",
      upgrade: rng.pick(["websocket", "SPDY/3.1", "h2c", "x"]),
      "sec-websocket-version": "13",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    });
  }
  const body =
    method === "POST" || method === "PUT" || method === "PATCH" ? rng.pick(["{}", "{", "x".repeat(2000)]) : undefined;
  if (body !== undefined)
    headers["content-type"] = rng.pick(["application/json", "text/plain", "application/x-www-form-urlencoded"]);
  return { surface, credential, auth: credential === "admin" ? "admin" : "none", method, path, headers, body };
}

function surfacePath(rng: Rng, surface: FuzzSurface): string {
  switch (surface) {
    case "gateway":
      return `/kubernetes/cluster/${name(rng, "c1")}${kubePath(rng)}`;
    case "vcluster":
      return `/kubernetes/project/${name(rng, "fuzz")}/virtualcluster/${name(rng, "vc")}${kubePath(rng)}`;
    case "agent":
      return kubePath(rng);
    case "console":
      return rng.pick([
        `/console/${segments(rng)}`,
        `/console/assets/${segments(rng)}`,
        `/console/api/${rng.pick(["session", "config", segments(rng)])}`,
        "/console",
        "/",
      ]);
    case "sso":
      return `/auth/oidc/${rng.pick(["login", "callback", "token", "logout", segments(rng)])}${ssoQuery(rng)}`;
  }
}

/** A cluster, project or instance name: the real one, or a hostile one. */
function name(rng: Rng, real: string): string {
  return rng.chance(0.5)
    ? real
    : rng.chance(0.6)
      ? rng.pick(HOSTILE_SEGMENTS.filter(Boolean))
      : pathSegment(rng, oddName(rng));
}

function kubePath(rng: Rng): string {
  const base = rng.pick(KUBE_PATHS);
  if (rng.chance(0.4)) return base;
  // One segment of a real path replaced, or a hostile one added.
  const parts = base.split("/");
  const at = rng.int(1, Math.max(1, parts.length - 1));
  if (rng.chance(0.5)) parts[at] = rng.pick(HOSTILE_SEGMENTS);
  else parts.splice(at, 0, rng.pick(HOSTILE_SEGMENTS));
  // No query that opens a stream the cluster keeps open (a watch, `follow`): the client waits for each answer's end.
  const query = rng.chance(0.2)
    ? `?${rng.pick(["watch=0", "watch=false", "follow=false", "a=%E0%A4%A", "%zz", "limit=%ZZ"])}`
    : "";
  return `${parts.join("/")}${query}`;
}

function segments(rng: Rng): string {
  return Array.from({ length: rng.int(1, 3) }, () => rng.pick([...HOSTILE_SEGMENTS, "index.html", "a", "日本"])).join(
    "/",
  );
}

function ssoQuery(rng: Rng): string {
  if (rng.chance(0.4)) return "";
  return `?${rng.pick([
    "state=%ZZ&code=x",
    "code=%E0%A4%A",
    "state=&code=",
    "redirect=https%3A%2F%2Fevil.example",
    "cli=1&port=99999",
    `state=${"s".repeat(5000)}`,
    "error=access_denied&error_description=%3Cscript%3E",
  ])}`;
}

/** Headers: most requests none of these; some huge, repeated, in other scripts, or the hop header of a loop. */
function hostileHeaders(rng: Rng): Record<string, string> {
  const headers: Record<string, string> = {};
  if (rng.chance(0.08)) headers["x-huge"] = "h".repeat(rng.pick([8_000, 15_000, 17_000, 70_000]));
  if (rng.chance(0.08)) {
    // Many header lines: node's client sends one per header name, so many names.
    for (let i = 0; i < rng.pick([50, 500]); i++) headers[`x-repeat-${i}`] = "r";
  }
  if (rng.chance(0.08)) headers["x-latin"] = rng.pick(["ü", "\u00ff\u00fe", "caf\u00e9"]);
  if (rng.chance(0.05)) headers["impersonate-user"] = rng.pick(["admin", "system:admin", "%ZZ"]);
  if (rng.chance(0.05))
    headers.cookie = rng.pick(["platform-session=%ZZ", `platform-session=${"c".repeat(4000)}`, "=;;="]);
  if (rng.chance(0.05)) headers["platform-gateway-hops"] = rng.pick(["1", "3", "4", "99", "-1", "x", "9".repeat(40)]);
  if (rng.chance(0.04)) headers["x-forwarded-for"] = rng.pick(["%ZZ", "1.2.3.4, ::1", "x".repeat(3000)]);
  return headers;
}
