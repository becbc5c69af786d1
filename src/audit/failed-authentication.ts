/**
 * What kube-apiserver's audit log says of a request its authentication refused (401): no user
 * (the request has none: `"user":{}`, never `system:anonymous`, who is an authenticated identity),
 * and in `responseStatus.message` the kinds of credentials the request carried, not their values.
 */
import type { IncomingHttpHeaders } from "node:http";
import { SESSION_COOKIE } from "../auth/session-cookie.js";

/** The console's sign-in takes an access key in its body (src/console/console-routes.ts). */
const CONSOLE_SIGN_IN = "/console/api/session";

/**
 * kube's wording: `Authentication failed, attempted: bearer` (basic, bearer, access_token, each
 * one present), else `Authentication failed, no credentials provided`. This server's own
 * credentials are named too: the console's session cookie (`session`) and the access key a
 * console sign-in sends in its body (`console sign-in`).
 */
export function failedAuthenticationMessage(method: string, url: string, headers: IncomingHttpHeaders): string {
  const attempted: string[] = [];
  const authorization = (headers.authorization ?? "").trim();
  const scheme = authorization.split(" ")[0]?.toLowerCase();
  if (scheme === "basic") attempted.push("basic");
  if (scheme === "bearer" && authorization.split(" ").length > 1) attempted.push("bearer");
  const [path = "", query = ""] = url.split("?");
  if (new URLSearchParams(query).get("access_token")?.trim()) attempted.push("access_token");
  const cookies = headers.cookie ?? "";
  if (cookies.split(";").some((c) => c.trim().startsWith(`${SESSION_COOKIE}=`))) attempted.push("session");
  if (method === "POST" && path === CONSOLE_SIGN_IN) attempted.push("console sign-in");
  return attempted.length > 0
    ? `Authentication failed, attempted: ${attempted.join(", ")}`
    : "Authentication failed, no credentials provided";
}
