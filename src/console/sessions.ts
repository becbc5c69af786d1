import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { errors } from "../api/errors.js";
import { looksLikeDirectToken } from "../auth/direct-token.js";
import { SESSION_COOKIE } from "../auth/session-cookie.js";
import { hashAccessKey } from "../crypto/access-keys.js";
import type { KeptValueCipher } from "../registry/kept-keys.js";
import type { Registry } from "../registry/registry.js";
import { entryId, SealedEntries } from "../registry/sealed-entries.js";
import { SealedEntriesSweeper } from "../registry/sealed-entries-sweeper.js";
import { RecentSessions } from "./recent-sessions.js";

/** The console's cookie (its name is in src/auth, which the audit log reads it from). */
export { SESSION_COOKIE };
/** The header that carries the session's CSRF token on writes. */
export const CSRF_HEADER = "x-csrf-token";
/** A session ends this long after sign-in however busy it is. */
const SESSION_MAX_AGE_SECONDS = 12 * 3600;
/** …and this long after its last use. */
const SESSION_IDLE_SECONDS = 3600;
/**
 * Last use is written to the store at most this often per session (not on every request): a session
 * ends between SESSION_IDLE_SECONDS minus this and SESSION_IDLE_SECONDS after its last use.
 */
const TOUCH_EVERY_MS = 60_000;
/** How long this process may answer from memory a session it read from the store (RecentSessions). */
export const SESSION_CACHE_MS = 5_000;
/** Beyond this many sessions in the store, the sweep ends those that expire first (bounded storage). */
const MAX_SESSIONS = 50_000;
/** The registry's internal key space (kept-keys.ts) of console sessions. */
export const SESSION_SPACE = "console-sessions";

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** What the store keeps of a session, encrypted: the key it acts with, its CSRF token, when it ends at the latest. */
interface KeptSession {
  accessKey: string;
  csrfToken: string;
  endsAt: number;
}

/** A session as read: with the expiry and revision of its entry. */
interface LiveSession extends KeptSession {
  expiresAt: number;
  revision: number;
}

export interface StartedSession {
  /** The cookie value (sent to the browser only in the Set-Cookie header). */
  id: string;
  csrfToken: string;
}

/**
 * Console sessions, kept in the store (src/registry/sealed-entries.ts) so that every replica and every
 * worker of `--workers` knows them: found by the SHA-256 of the random session id the browser holds
 * in an HttpOnly cookie, the access key and CSRF token encrypted with the server's encryption keys,
 * in an internal key space no API resource serves and backups leave out. A session is a way to
 * present that key: every API request made with it authenticates the key again (a disabled or
 * deleted key, or a disabled user, ends it in effect on every replica). Sign-out removes the entry;
 * the elected replica sweeps expired ones (`sweeper`) and removes those of deleted keys
 * (key-session-cleanup.ts). A found session is remembered here for
 * SESSION_CACHE_MS at most, and forgotten as soon as the store reports a change to it.
 */
export class ConsoleSessions {
  readonly entries: SealedEntries<KeptSession>;
  /** Removes ended sessions from the store; run by the elected replica. */
  readonly sweeper: SealedEntriesSweeper;
  readonly #recent: RecentSessions<LiveSession>;

  constructor(
    registry: Registry,
    cipher: KeptValueCipher,
    onError: (err: unknown) => void = () => {},
    private readonly now: () => number = Date.now,
  ) {
    this.entries = new SealedEntries(registry, SESSION_SPACE, cipher);
    this.sweeper = new SealedEntriesSweeper([this.entries], onError, MAX_SESSIONS);
    this.#recent = new RecentSessions(this.entries, SESSION_CACHE_MS, MAX_SESSIONS, onError);
  }

  /** Follows changes made on other replicas (without it, every lookup reads the store). */
  watch(): Promise<void> {
    return this.#recent.start();
  }

  stop(): void {
    this.#recent.stop();
  }

  async begin(accessKey: string): Promise<StartedSession> {
    const id = randomBytes(32).toString("base64url");
    const csrfToken = randomBytes(32).toString("base64url");
    const now = this.now();
    const endsAt = now + SESSION_MAX_AGE_SECONDS * 1000;
    await this.entries.put(id, { accessKey, csrfToken, endsAt }, idleExpiry(now, endsAt));
    return { id, csrfToken };
  }

  /** Ends the session named by the request's cookie, on every replica (nothing when there is none). */
  async end(headers: IncomingHttpHeaders): Promise<void> {
    const id = sessionIdOf(headers);
    if (!id) return;
    this.#recent.forget(entryId(id));
    await this.entries.remove(id);
  }

  /**
   * Ends every session that acts with one of these keys (by their stored hashes, hex SHA-256:
   * the keys were deleted), on every replica; returns how many. They are refused already (each
   * request authenticates the key), this removes them from the store at once.
   */
  async endSessionsOfKeys(keyHashes: ReadonlySet<string>): Promise<number> {
    if (keyHashes.size === 0) return 0;
    return this.entries.removeWhere((session) => keyHashes.has(hashAccessKey(session.accessKey)));
  }

  /**
   * The stored hashes of the access keys that sessions act with (for a pass that ends those of keys
   * deleted unseen). Sessions signed in with a DirectClusterEndpointToken (a JWT) act with no access
   * key and are left out.
   */
  async accessKeyHashesInUse(): Promise<Set<string>> {
    const hashes = new Set<string>();
    for (const session of await this.entries.values()) {
      if (!looksLikeDirectToken(session.accessKey)) hashes.add(hashAccessKey(session.accessKey));
    }
    return hashes;
  }

  /** The CSRF token of the request's live session, or undefined. */
  async csrfTokenOf(headers: IncomingHttpHeaders): Promise<string | undefined> {
    return (await this.live(headers))?.csrfToken;
  }

  /**
   * The access key to authenticate a request that came with the session cookie (and no
   * Authorization header), or undefined when it has no live session. A write must carry the
   * session's CSRF token in `X-CSRF-Token`: another site can make the browser send the
   * cookie, never read the token. Without it the request is refused with 403.
   */
  async credentialOf(method: string, headers: IncomingHttpHeaders): Promise<string | undefined> {
    const session = await this.live(headers);
    if (!session) return undefined;
    if (WRITES.has(method.toUpperCase()) && !sameToken(headers[CSRF_HEADER], session.csrfToken)) {
      throw errors.forbiddenMessage(
        "a console session writes only with its CSRF token (X-CSRF-Token header); sign in again if it is lost",
      );
    }
    return session.accessKey;
  }

  /** The live session of the request's cookie: from memory when recent, else the store; its last use noted. */
  private async live(headers: IncomingHttpHeaders): Promise<LiveSession | undefined> {
    const id = sessionIdOf(headers);
    if (!id) return undefined;
    const key = entryId(id);
    const now = this.now();
    let session = this.#recent.get(key, now);
    if (!session || session.expiresAt <= now) session = await this.read(id, key, now);
    if (!session) return undefined;
    const renewed = idleExpiry(now, session.endsAt);
    if (renewed - session.expiresAt < TOUCH_EVERY_MS) return session;
    // Used again: its idle expiry moves on. Lost to another replica's touch or a sign-out: read again.
    this.#recent.forget(key);
    if (await this.entries.extend(id, session.revision, renewed)) return { ...session, expiresAt: renewed };
    return this.read(id, key, now);
  }

  private async read(id: string, key: string, now: number): Promise<LiveSession | undefined> {
    const ticket = this.#recent.ticket();
    const read = await this.entries.read(id, now);
    if (!read) return undefined;
    const session = { ...read.value, expiresAt: read.expiresAt, revision: read.revision };
    this.#recent.keep(key, session, ticket, now);
    return session;
  }
}

/** When a session used at `now` ends unless used again: idle time, never past its end. */
function idleExpiry(now: number, endsAt: number): number {
  return Math.min(endsAt, now + SESSION_IDLE_SECONDS * 1000);
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

function sameToken(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
