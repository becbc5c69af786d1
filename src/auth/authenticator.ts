import { timingSafeEqual } from "node:crypto";
import { LruMap } from "toad-cache";
import { errors } from "../api/errors.js";
import { type KubeObject, specOf } from "../api/object.js";
import { hashAccessKey } from "../crypto/access-keys.js";
import { KEY_HASH_PREFIX, keyExpiry, type OwnedAccessKeySpec } from "../kinds/owned-access-key/owned-access-key.js";
import type { UserSpec } from "../kinds/user/user.js";
import type { UserInfo } from "../registry/request-context.js";
import { identityCacheCounts } from "./identity-cache-counts.js";
import { identityDependencies } from "./identity-dependencies.js";
import type { IdentityIndex } from "./identity-index.js";

/** Turns a bearer token into an identity, or a 401. */
export interface Authenticator {
  authenticate(token: string | undefined): Promise<UserInfo>;
}

/** Reads `Authorization: Bearer <token>`; anything else is no credential. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

export interface AccessKeyAuthenticatorOptions {
  now?: () => number;
  /** Tries other credential kinds (direct cluster endpoint tokens) when no access key matches. */
  fallback?: (token: string) => Promise<UserInfo | undefined>;
  /** How long a request waits for informers known to be behind (IdentityIndex.failClosed) before a 503. */
  catchUpWaitMs?: number;
  /** How many identities the cache holds before it forgets the least recently used (default 10,000). */
  maxCachedIdentities?: number;
}

/**
 * Access keys are found by the SHA-256 of the presented value (keys are stored only as
 * hashes); a key that is disabled, expired, or whose user is disabled or gone is refused.
 */
export class AccessKeyAuthenticator implements Authenticator {
  /**
   * Identities by key hash, valid while nothing they were built from changed (the key, its user,
   * its teams and memberships: identity-dependencies.ts) and the key has not expired: every
   * request of a busy client would otherwise rebuild the same identity (groups, teams). When full,
   * the least recently used is forgotten: the keys in use stay cached however many others come.
   */
  private readonly identities: LruMap<CachedIdentity>;
  /** Identities answered from the cache, and built from the index (refused ones too): for tests and the metric. */
  readonly counts = { hits: 0, builds: 0 };

  constructor(
    private readonly index: IdentityIndex,
    private readonly options: AccessKeyAuthenticatorOptions = {},
  ) {
    this.identities = new LruMap<CachedIdentity>(options.maxCachedIdentities ?? MAX_CACHED_IDENTITIES);
  }

  /** The identity of a key authenticated before and unchanged since, without waiting; else undefined. */
  cachedIdentity(token: string | undefined): UserInfo | undefined {
    return token ? this.fromCache(hashAccessKey(token)) : undefined;
  }

  private fromCache(hash: string): UserInfo | undefined {
    const cached = this.identities.get(hash);
    if (!cached) return undefined;
    if (this.now() >= cached.expiresAt || !this.index.unchangedSince(cached.dependencies, cached.stamp)) {
      // Stale: forgotten, so that a client retrying a revoked key does not keep it among the recent.
      this.identities.delete(hash);
      return undefined;
    }
    // Nothing it depends on changed up to now: later checks need only look at changes after now.
    cached.stamp = this.index.stamps.now;
    this.counts.hits++;
    identityCacheCounts.hits++;
    return cached.user;
  }

  /** `hash`: the token's hashAccessKey(), when the caller computed it already. */
  async authenticate(token: string | undefined, hash = token && hashAccessKey(token)): Promise<UserInfo> {
    if (!token || !hash) throw errors.unauthorized();
    const cached = this.fromCache(hash);
    if (cached) return cached;
    if (this.index.isBehind) await this.notBehind();
    let key = this.index.keyByHash(hash);
    if (!key) {
      // Maybe created a moment ago and not yet in the in-memory index: catch up once.
      await this.index.sync();
      if (this.index.isBehind) await this.notBehind();
      key = this.index.keyByHash(hash);
    }
    if (!key) {
      const other = await this.options.fallback?.(token);
      if (other) return other;
      throw errors.unauthorized();
    }
    // The map lookup found it by hash; compare the whole stored hash in constant time as well.
    const stored = Buffer.from(String(key.spec?.key ?? "").slice(KEY_HASH_PREFIX.length));
    const given = Buffer.from(hash);
    if (stored.length !== given.length || !timingSafeEqual(stored, given)) throw errors.unauthorized();
    // Stamped before it is built; nothing below waits, so no change can come in between.
    const stamp = this.index.stamps.now;
    this.counts.builds++;
    identityCacheCounts.builds++;
    const user = frozen(this.identityOfKey(key));
    const expiry = keyExpiry(key);
    this.identities.set(hash, {
      stamp,
      dependencies: identityDependencies(hash, user),
      expiresAt: expiry ? Date.parse(expiry) : Number.POSITIVE_INFINITY,
      user,
    });
    return user;
  }

  /**
   * This replica answered a write before its informers applied it (access-write-barrier.ts,
   * IdentityIndex.failClosed): nothing is built from them until they have, or a 503. Called
   * after the last wait before an identity is built, so that none is built (and cached) between.
   */
  private async notBehind(): Promise<void> {
    while (this.index.isBehind) await this.index.caughtUp(this.options.catchUpWaitMs ?? CATCH_UP_WAIT_MS);
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  identityOfKey(key: KubeObject): UserInfo {
    const spec = specOf<OwnedAccessKeySpec>(key);
    if (spec.disabled === true) throw errors.unauthorized();
    const expiry = keyExpiry(key);
    if (expiry && Date.parse(expiry) <= this.now()) throw errors.unauthorized();
    const keyGroups = spec.groups ?? [];
    const credential = {
      type: "AccessKey" as const,
      name: key.metadata.name,
      keyType: spec.type ?? "User",
      scope: spec.scope,
    };
    if (typeof spec.user === "string" && spec.user) {
      const user = this.index.user(spec.user);
      if (!user || user.spec?.disabled === true) throw errors.unauthorized();
      const groups = [...new Set([...(specOf<UserSpec>(user).groups ?? []), ...keyGroups])];
      const teams = this.index.teamsOfUser(spec.user, groups).map((t) => t.metadata.name!);
      return { name: spec.user, subjectKind: "User", uid: user.metadata.uid, groups, teams, credential };
    }
    if (typeof spec.team === "string" && spec.team) {
      const team = this.index.team(spec.team);
      if (!team) throw errors.unauthorized();
      return { name: spec.team, subjectKind: "Team", uid: team.metadata.uid, groups: keyGroups, teams: [], credential };
    }
    return { name: String(spec.subject ?? ""), subjectKind: "Subject", groups: keyGroups, teams: [], credential };
  }
}

interface CachedIdentity {
  /** The index's stamps.now when it was built, or when it was last found unchanged. */
  stamp: number;
  /** What it was built from (identity-dependencies.ts). */
  readonly dependencies: readonly string[];
  /** The key's expiry (ms since the epoch). */
  expiresAt: number;
  user: UserInfo;
}

/** How long a request waits for informers known to be behind before a 503 (the write barrier waits as long). */
const CATCH_UP_WAIT_MS = 3000;

/** Enough for every key in use in a large organisation; past it the least recently used go. */
const MAX_CACHED_IDENTITIES = 10_000;

/** A cached identity is shared by concurrent requests: nobody may change it. */
function frozen(user: UserInfo): UserInfo {
  Object.freeze(user.groups);
  Object.freeze(user.teams);
  if (user.credential) Object.freeze(user.credential);
  return Object.freeze(user);
}
