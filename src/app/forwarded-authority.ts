import type { AdmissionDeps } from "../admission/plugins.js";
import type { IdentityIndex } from "../auth/identity-index.js";
import type { PlatformAuthorizer } from "../authz/authorizer.js";

/**
 * The authorizer and identity index read through the registry, and the registry's admission
 * asks them: this breaks the circle. Admission gets objects that forward each call to the
 * authorizer and identity index the composition root builds right after the registry (calls
 * happen only once writes run, after both exist).
 */
export function forwardedAuthority(
  authorizer: () => PlatformAuthorizer,
  identity: () => IdentityIndex,
): Pick<AdmissionDeps, "authorizer" | "identity"> {
  return {
    authorizer: {
      authorize: (user, attrs) => authorizer().authorize(user, attrs),
      needsObject: (user, attrs) => authorizer().needsObject(user, attrs),
      decide: (user, attrs) => authorizer().decide(user, attrs),
      isAdmin: (user) => authorizer().isAdmin(user),
      rolesOf: (user) => authorizer().rolesOf(user),
      canReadSecretData: (user, obj, resource) => authorizer().canReadSecretData(user, obj, resource),
    },
    identity: { teamsOfUser: (name, groups) => identity().teamsOfUser(name, groups) },
  };
}
