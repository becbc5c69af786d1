import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { errors } from "../api/errors.js";

/**
 * The console's cookie. `__Host-` makes the browser insist on Secure, Path=/ and no Domain,
 * so no other host (or an http page) can plant or read it.
 */
export const SESSION_COOKIE = "__Host-platform-session";
/** The header that carries the session's CSRF token on writes. */
export const CSRF_HEADER = "x-csrf-token";
/** A session ends this long after sign-in however busy it is. */
const SESSION_MAX_AGE_SECONDS = 12 * 3600;
/** …and this long after its last use. */
const SESSION_IDLE_SECONDS = 3600;
/** Beyond this many live sessions the oldest are ended (bounded memory). */
const MAX_SESSIONS = 50_000;

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

interface Session {
  accessKey: string;
  csrfToken: string;
  expiresAt: number;
  lastUsed: number;
}

export interface StartedSession {
  /** The cookie value (sent to the browser only in the Set-Cookie header). */
  id: string;
  csrfToken: string;
}

/**
 * Console sessions, kept in this process's memory only: the access key a browser signed in
 * with stays on the server, found by the SHA-256 of the random session id the browser holds
 * in an HttpOnly cookie. A session is a way to present that key: every API request made with
 * it authenticates the key again (a disabled or expired key, or a disabled user, ends it in
 * effect). A restart ends every session (people sign in again).
 */
export class ConsoleSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  start(accessKey: string): StartedSession {
    this.prune();
    const id = randomBytes(32).toString("base64url");
    const csrfToken = randomBytes(32).toString("base64url");
    const now = this.now();
    this.sessions.set(digest(id), {
      accessKey,
      csrfToken,
      expiresAt: now + SESSION_MAX_AGE_SECONDS * 1000,
      lastUsed: now,
    });
    return { id, csrfToken };
  }

  /** Ends the session named by the request's cookie (nothing when there is none). */
  end(headers: IncomingHttpHeaders): void {
    const id = sessionIdOf(headers);
    if (id) this.sessions.delete(digest(id));
  }

  /** The CSRF token of the request's live session, or undefined. */
  csrfTokenOf(headers: IncomingHttpHeaders): string | undefined {
    return this.live(headers)?.csrfToken;
  }

  /**
   * The access key to authenticate a request that came with the session cookie (and no
   * Authorization header), or undefined when it has no live session. A write must carry the
   * session's CSRF token in `X-CSRF-Token`: another site can make the browser send the
   * cookie, never read the token. Without it the request is refused with 403.
   */
  credentialOf(method: string, headers: IncomingHttpHeaders): string | undefined {
    const session = this.live(headers);
    if (!session) return undefined;
    if (WRITES.has(method.toUpperCase()) && !sameToken(headers[CSRF_HEADER], session.csrfToken)) {
      throw errors.forbiddenMessage(
        "a console session writes only with its CSRF token (X-CSRF-Token header); sign in again if it is lost",
      );
    }
    session.lastUsed = this.now();
    return session.accessKey;
  }

  get size(): number {
    return this.sessions.size;
  }

  private live(headers: IncomingHttpHeaders): Session | undefined {
    const id = sessionIdOf(headers);
    if (!id) return undefined;
    const key = digest(id);
    const session = this.sessions.get(key);
    if (!session) return undefined;
    const now = this.now();
    if (now >= session.expiresAt || now >= session.lastUsed + SESSION_IDLE_SECONDS * 1000) {
      this.sessions.delete(key);
      return undefined;
    }
    return session;
  }

  private prune(): void {
    const now = this.now();
    for (const [key, s] of this.sessions) {
      if (now >= s.expiresAt || now >= s.lastUsed + SESSION_IDLE_SECONDS * 1000) this.sessions.delete(key);
    }
    // Maps iterate in insertion order: the first are the oldest.
    for (const key of this.sessions.keys()) {
      if (this.sessions.size < MAX_SESSIONS) break;
      this.sessions.delete(key);
    }
  }
}

/** The session id from the Cookie header, if any. */
function sessionIdOf(headers: IncomingHttpHeaders): string | undefined {
  const cookie = headers.cookie;
  if (!cookie) return undefined;
  for (const part of cookie.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** The Set-Cookie value for a new session, or (with no id) one that removes it. */
export function sessionCookie(id: string | undefined): string {
  const attributes = "Path=/; Secure; HttpOnly; SameSite=Strict";
  return id
    ? `${SESSION_COOKIE}=${id}; ${attributes}; Max-Age=${SESSION_MAX_AGE_SECONDS}`
    : `${SESSION_COOKIE}=; ${attributes}; Max-Age=0`;
}

function digest(id: string): string {
  return createHash("sha256").update(id).digest("base64url");
}

function sameToken(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
