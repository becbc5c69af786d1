import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "../api/object.js";
import { keyExpiry } from "../kinds/owned-access-key/owned-access-key.js";

/*
 * Which updates of keys, users and teams leave every cached identity (authenticator.ts) and the
 * roles derived from it (authorizer.ts) as they are, so that they touch nothing; the others touch
 * only what they can reach (identity-dependencies.ts). What an identity is built from:
 *
 * - its key: metadata.uid, the whole spec (key hash, disabled, ttl and ttlAfterLastActivity,
 *   groups, type, scope, user/team/subject) but `spec.identity` (a single sign-on login's record
 *   of its provider's claims and refresh token, which the SSO refresher rewrites on every token
 *   refresh and authentication never reads: the provider's groups reach identities through the
 *   User, sso/user-sync.ts), and its expiry (status.lastActivity with ttlAfterLastActivity);
 * - a User key's user: existence, metadata.uid and the spec (disabled, groups; clusterRoles for
 *   the roles);
 * - a Team key's team: existence, metadata.uid and the spec (clusterRoles for the roles);
 * - a User key's teams: every team naming the user in spec.users or one of its groups in
 *   spec.groups, and their spec.clusterRoles.
 *
 * Anything else in those objects (status, labels, annotations, resourceVersion, managedFields) is
 * read by no identity. Whatever these functions are unsure of counts as a change (fail closed).
 */

/** Whether an update of a User or Team (same name) changes nothing an identity is built from. */
export function updateKeepsIdentities(old: KubeObject, now: KubeObject): boolean {
  return sameButSpecFields(old, now, []);
}

/**
 * Whether two versions of one object have the same uid and the same spec but for the top-level
 * spec fields `ignored` (a key's SSO record here; a team's member lists in identity-dependencies.ts).
 */
export function sameButSpecFields(old: KubeObject, now: KubeObject, ignored: readonly string[]): boolean {
  return (
    old.metadata.uid === now.metadata.uid &&
    isDeepStrictEqual(specWithout(old.spec, ignored), specWithout(now.spec, ignored))
  );
}

function specWithout(spec: unknown, ignored: readonly string[]): unknown {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) return spec;
  if (!ignored.some((field) => field in spec)) return spec;
  const rest = { ...(spec as Record<string, unknown>) };
  for (const field of ignored) delete rest[field];
  return rest;
}

/**
 * Whether an update of an access key changes nothing an identity is built from. The expiry may
 * move later (status.lastActivity of a key with ttlAfterLastActivity, written at most once a
 * minute): a cached identity then lapses at the earlier expiry and the next request builds it
 * again, which is safe. An earlier expiry counts as a change.
 */
export function keyUpdateKeepsIdentities(old: KubeObject, now: KubeObject): boolean {
  // Not `spec.identity` (see the list above: no identity is built from it).
  if (!sameButSpecFields(old, now, ["identity"])) return false;
  const before = keyExpiry(old);
  const after = keyExpiry(now);
  if (before === after) return true;
  return before !== "" && after !== "" && Date.parse(after) >= Date.parse(before);
}
