import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import * as oidc from "openid-client";

/** A sign-in begun in a browser and not yet back from the IdP. */
export interface PendingLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
  expiresAt: number;
  /** Set when `platform login --sso` started it: where the browser goes back to, and the CLI's challenge. */
  cli?: CliLogin;
}

export interface CliLogin {
  /** The CLI's loopback port on 127.0.0.1. */
  port: number;
  /** base64url(SHA-256(verifier)) of the verifier the CLI keeps. */
  challenge: string;
  /** Echoed to the loopback so the CLI knows the redirect is its own. */
  state: string;
}

/** A sign-in must come back within this time. */
const LOGIN_TTL_MS = 10 * 60 * 1000;
/** The CLI exchanges its one-time code within this time. */
const CODE_TTL_MS = 60 * 1000;
/** Bounded memory: beyond this the oldest entries go first. */
const MAX_ENTRIES = 10_000;

/** Entries in insertion order that expire; taking one removes it (single use). */
class ExpiringMap<V extends { expiresAt: number }> {
  readonly #entries = new Map<string, V>();

  put(key: string, value: V): void {
    if (this.#entries.size >= MAX_ENTRIES) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, value);
  }

  take(key: string, now: number): V | undefined {
    const value = this.#entries.get(key);
    this.#entries.delete(key);
    return value && value.expiresAt > now ? value : undefined;
  }
}

/** Sign-ins in flight, by state: a state is used once, so a replayed callback finds nothing. */
export class PendingLogins {
  readonly #logins = new ExpiringMap<PendingLogin>();

  begin(cli: CliLogin | undefined, now = Date.now()): PendingLogin {
    const login: PendingLogin = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      expiresAt: now + LOGIN_TTL_MS,
      ...(cli ? { cli } : {}),
    };
    this.#logins.put(login.state, login);
    return login;
  }

  take(state: string, now = Date.now()): PendingLogin | undefined {
    return this.#logins.take(state, now);
  }
}

/** What a CLI's one-time code stands for. */
export interface IssuedKey {
  accessKey: string;
  accessKeyName: string;
  user: string;
}

/**
 * One-time codes the browser hands to the CLI's loopback: the key itself never travels in a URL.
 * A code is good once, for a minute, and only with the verifier whose challenge started the login.
 */
export class OneTimeCodes {
  readonly #codes = new ExpiringMap<IssuedKey & { challenge: string; expiresAt: number }>();

  issue(key: IssuedKey, challenge: string, now = Date.now()): string {
    const code = randomBytes(32).toString("base64url");
    this.#codes.put(code, { ...key, challenge, expiresAt: now + CODE_TTL_MS });
    return code;
  }

  /** The key for this code and verifier, or undefined; any attempt uses the code up. */
  redeem(code: string, verifier: string, now = Date.now()): IssuedKey | undefined {
    const entry = this.#codes.take(code, now);
    if (!entry) return undefined;
    const expected = Buffer.from(entry.challenge);
    const given = Buffer.from(pkceChallenge(verifier));
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    return { accessKey: entry.accessKey, accessKeyName: entry.accessKeyName, user: entry.user };
  }
}

/** base64url(SHA-256(verifier)), as PKCE's S256 method. */
export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}
