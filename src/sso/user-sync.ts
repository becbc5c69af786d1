import { ApiError } from "../api/errors.js";
import { API_VERSION, type KubeObject, specOf } from "../api/object.js";
import type { UserSpec } from "../kinds/user/user.js";
import type { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import { type SsoIdentity, SsoRefusal } from "./claims.js";

/** A User signed in by SSO names the issuer and subject it belongs to (an admin sets these to link a user). */
export const ISSUER_ANNOTATION = "management.platform/oidc-issuer";
export const SUBJECT_ANNOTATION = "management.platform/oidc-subject";

const WRITE = { dryRun: false, fieldManager: "platform-sso", fieldValidation: "Strict" as const };

/**
 * The User of a sign-in: found by name and linked to this issuer and subject, or created on the
 * first sign-in. Its spec.groups become the IdP's groups (team membership by group follows).
 * Writes go through the registry's stores like any API write.
 */
export async function syncUser(registry: Registry, identity: SsoIdentity): Promise<KubeObject> {
  const store = registry.store("users");
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await store.read(undefined, identity.userName);
    if (existing) return updateUser(registry, existing, identity);
    try {
      return await store.create(systemContext(), undefined, newUser(identity), WRITE);
    } catch (err) {
      // Two first sign-ins at once: the other one created it; read it again.
      if (!(err instanceof ApiError && err.status.code === 409)) throw err;
    }
  }
  throw new SsoRefusal(400, "the user changed during sign-in; try again");
}

function newUser(identity: SsoIdentity): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: "User",
    metadata: {
      name: identity.userName,
      annotations: { [ISSUER_ANNOTATION]: identity.issuer, [SUBJECT_ANNOTATION]: identity.subject },
    },
    spec: {
      username: identity.username,
      ...(identity.displayName ? { displayName: identity.displayName } : {}),
      ...(identity.email ? { email: identity.email } : {}),
      subject: identity.subject,
      groups: identity.groups,
    },
  };
}

/** Refuses a user that is disabled, being deleted, or not linked to this identity. */
function checkUser(user: KubeObject, identity: SsoIdentity): void {
  const name = user.metadata.name;
  const annotations = user.metadata.annotations ?? {};
  const issuer = annotations[ISSUER_ANNOTATION];
  const subject = annotations[SUBJECT_ANNOTATION];
  if (issuer === undefined && subject === undefined) {
    throw new SsoRefusal(
      403,
      `the user "${name}" exists and was not created by sign-in; an administrator can link it to this identity (see docs/sso.md)`,
    );
  }
  if (issuer !== identity.issuer || subject !== identity.subject) {
    throw new SsoRefusal(403, `the user "${name}" belongs to another identity`);
  }
  if (user.spec?.disabled === true) throw new SsoRefusal(403, `the user "${name}" is disabled`);
  if (user.metadata.deletionTimestamp) throw new SsoRefusal(403, `the user "${name}" is being deleted`);
}

async function updateUser(registry: Registry, user: KubeObject, identity: SsoIdentity): Promise<KubeObject> {
  checkUser(user, identity);
  const updated = await setGroups(registry, user.metadata.name!, identity);
  if (!updated) throw new SsoRefusal(403, `the user "${user.metadata.name}" was deleted`);
  return updated;
}

/** Replaces the user's groups with the IdP's (re-checking the link on the object it writes). */
export async function setGroups(
  registry: Registry,
  name: string,
  identity: SsoIdentity,
): Promise<KubeObject | undefined> {
  return registry.store("users").guaranteedUpdate(systemContext(), undefined, name, (obj) => {
    checkUser(obj, identity);
    const current = specOf<UserSpec>(obj).groups ?? [];
    if (sameList(current, identity.groups)) return undefined;
    obj.spec = { ...obj.spec, groups: identity.groups };
    return obj;
  });
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
