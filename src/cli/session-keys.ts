import { hostname } from "node:os";
import { parseDuration } from "./accesskeys.js";
import { ApiClient, type Json } from "./api-client.js";
import { apiPath } from "./common.js";
import type { LoginConfig } from "./config.js";
import { CliError } from "./errors.js";

/**
 * The session key `platform login` creates expires after this long unused (`--session-ttl`);
 * each use renews it (the key's `ttlAfterLastActivity`).
 */
export const DEFAULT_SESSION_TTL = "7d";
/**
 * The server renews a key's last activity at most once a minute (docs/security.md), so a shorter
 * idle lifetime could end a session that is in use; two minutes leaves room for one renewal.
 */
const MIN_SESSION_TTL_SECONDS = 120;

/** `--session-ttl` in seconds; a usage error (exit 2) when it is not a duration or too short. */
export function sessionTtlSeconds(value: string | undefined): number {
  const seconds = parseDuration(value ?? DEFAULT_SESSION_TTL);
  if (seconds < MIN_SESSION_TTL_SECONDS) {
    throw new CliError(`--session-ttl must be at least ${MIN_SESSION_TTL_SECONDS}s (got "${value}")`, 2);
  }
  return seconds;
}

/**
 * Creates the Login key of one session with the given key: same owner and scope (so it never
 * allows more than the given key), expiring `ttlSeconds` after its last use. Undefined when the
 * given key may not create keys (a project-scoped CI key): the login then stores it as given.
 */
export async function createSessionKey(
  given: ApiClient,
  givenKeyName: string | undefined,
  ttlSeconds: number,
): Promise<{ key: string; name: string } | undefined> {
  let scope: unknown;
  if (givenKeyName) {
    const original = await given.get(apiPath("ownedaccesskeys", givenKeyName)).catch(() => undefined);
    scope = original?.spec?.scope;
  }
  const created: Json = await given
    .post(apiPath("ownedaccesskeys"), {
      apiVersion: "management.platform/v1",
      kind: "OwnedAccessKey",
      metadata: { generateName: "login-" },
      spec: {
        type: "Login",
        displayName: `platform login from ${hostname()}`,
        description: `Created by \`platform login\` with key ${givenKeyName ?? "?"}; deleted by \`platform logout\` or the next login.`,
        ttl: ttlSeconds,
        ttlAfterLastActivity: true,
        ...(scope ? { scope } : {}),
      },
    })
    .catch((err: unknown) => {
      if (!/forbidden/i.test(String((err as Error)?.message))) throw err;
      process.stderr.write(
        "warning: this key may not create a session key; storing it as given (logout will only forget it)\n",
      );
      return undefined;
    });
  return created ? { key: created.spec.key, name: created.metadata.name } : undefined;
}

/**
 * Deletes the session key a login created, on that login's server with that key itself. A key
 * already gone (404) or refused (401: expired, disabled, deleted) counts as revoked.
 */
export async function deleteSessionKey(login: LoginConfig): Promise<void> {
  if (!login.createdByLogin || !login.accessKeyName) return;
  try {
    await new ApiClient(login).delete(apiPath("ownedaccesskeys", login.accessKeyName));
  } catch (err) {
    if (err instanceof CliError && (err.status === 404 || err.status === 401)) return;
    throw err;
  }
}

/**
 * A new login replaces the stored one: revoke the session key the stored one created (whatever
 * server it is on: once replaced, nothing could log it out any more). Failing that, the new login
 * still goes ahead, and the warning names the key to delete by hand.
 */
export async function revokeReplacedSession(previous: LoginConfig | undefined, next: LoginConfig): Promise<void> {
  if (!previous?.createdByLogin || !previous.accessKeyName) return;
  // A login given the stored session key itself with --reuse-key stores that very key again.
  if (previous.accessKey === next.accessKey) return;
  try {
    await deleteSessionKey(previous);
  } catch (err) {
    process.stderr.write(
      `warning: could not revoke the previous session key ${previous.accessKeyName} on ${previous.server}: ${(err as Error).message}\nDelete it there with \`platform delete accesskey ${previous.accessKeyName}\`.\n`,
    );
  }
}
