import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import * as oidc from "openid-client";
import type { KeptValueCipher } from "../registry/kept-keys.js";
import type { Registry } from "../registry/registry.js";
import { SealedEntries } from "../registry/sealed-entries.js";

/** A sign-in begun in a browser and not yet back from the IdP. */
export interface PendingLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
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
/** The internal key spaces (kept-keys.ts) of sign-ins in progress and of CLI codes. */
export const SIGN_IN_SPACE = "sso-sign-ins";
export const CODE_SPACE = "sso-cli-codes";

type KeptLogin = Omit<PendingLogin, "state">;

/**
 * Sign-ins in flight, in the store (src/registry/sealed-entries.ts) so the callback can land on any replica:
 * found by the hash of the state, nonce and verifier encrypted, a state used once, so a replayed
 * callback finds nothing.
 */
export class PendingLogins {
  readonly entries: SealedEntries<KeptLogin>;

  constructor(registry: Registry, cipher: KeptValueCipher) {
    this.entries = new SealedEntries(registry, SIGN_IN_SPACE, cipher);
  }

  async begin(cli: CliLogin | undefined, now = Date.now()): Promise<PendingLogin> {
    const kept: KeptLogin = {
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      ...(cli ? { cli } : {}),
    };
    const state = oidc.randomState();
    await this.entries.put(state, kept, now + LOGIN_TTL_MS);
    return { state, ...kept };
  }

  async take(state: string, now = Date.now()): Promise<PendingLogin | undefined> {
    const kept = await this.entries.take(state, now);
    return kept && { ...kept, state };
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
 * Kept in the store like sign-ins (the CLI may post it to another replica); the key encrypted.
 */
export class OneTimeCodes {
  readonly entries: SealedEntries<IssuedKey & { challenge: string }>;

  constructor(registry: Registry, cipher: KeptValueCipher) {
    this.entries = new SealedEntries(registry, CODE_SPACE, cipher);
  }

  async issue(key: IssuedKey, challenge: string, now = Date.now()): Promise<string> {
    const code = randomBytes(32).toString("base64url");
    await this.entries.put(code, { ...key, challenge }, now + CODE_TTL_MS);
    return code;
  }

  /** The key for this code and verifier, or undefined; any attempt uses the code up. */
  async redeem(code: string, verifier: string, now = Date.now()): Promise<IssuedKey | undefined> {
    const entry = await this.entries.take(code, now);
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
