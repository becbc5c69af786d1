import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ANONYMOUS_USER, UNAUTHENTICATED_GROUP } from "../auth/anonymous.js";
import { IdentityIndex } from "../auth/identity-index.js";
import { ownedAccessKeyResource } from "../kinds/owned-access-key/owned-access-key.js";
import { projectResource } from "../kinds/project/project.js";
import { teamResource } from "../kinds/team/team.js";
import { userResource } from "../kinds/user/user.js";
import type { UserInfo } from "../registry/request-context.js";
import { SharedInformers } from "../registry/shared-informers.js";
import { flakyRegistry } from "../testing/flaky-registry.js";
import { PlatformAuthorizer } from "./authorizer.js";
import { nonResourceAttributes, type RequestAttributes } from "./contract.js";

const resource = (verb: string, plural: string, name = ""): RequestAttributes => ({
  verb,
  apiGroup: "management.platform",
  resource: plural,
  subresource: "",
  namespace: "",
  name,
  resourceRequest: true,
});

/**
 * What the anonymous user (a request without credentials on a public path) may do: `get` on the
 * public paths, as kube's system:public-info-viewer, and nothing else; and what every
 * authenticated caller may do on paths that are no resource: `get`, whatever the path's method.
 */
describe("authorizer: the anonymous user and non-resource verbs", () => {
  const { registry, close } = flakyRegistry([teamResource, userResource, ownedAccessKeyResource(), projectResource]);
  const informers = new SharedInformers(registry);
  const identity = new IdentityIndex(informers.for("ownedaccesskeys"), informers.for("users"), informers.for("teams"));
  const authz = new PlatformAuthorizer(identity, informers.for("projects"), registry.resourceTypes());
  const allowed = (user: UserInfo, a: RequestAttributes) => authz.decide(user, a).allowed;

  before(async () => {
    await identity.start();
    await informers.for("projects").synced();
  });
  after(async () => {
    informers.stop();
    await close();
  });

  it("anonymous: get on the public paths only", () => {
    for (const path of ["/version", "/kubernetes/management/version", "/healthz", "/livez", "/readyz"]) {
      assert.equal(allowed(ANONYMOUS_USER, nonResourceAttributes("get", path)), true, path);
      assert.equal(allowed(ANONYMOUS_USER, nonResourceAttributes("post", path)), false, path);
    }
    for (const path of ["/kubernetes/management/apis", "/kubernetes/management/openapi/v3", "/metrics"]) {
      assert.equal(allowed(ANONYMOUS_USER, nonResourceAttributes("get", path)), false, path);
    }
    // Lists are answered for every authenticated caller (filtered); never for nobody.
    assert.equal(allowed(ANONYMOUS_USER, resource("list", "teams")), false);
    assert.equal(allowed(ANONYMOUS_USER, resource("create", "selfsubjectaccessreviews")), false);
  });

  it("a key whose groups name system:unauthenticated is no anonymous user", () => {
    const keyUser: UserInfo = { name: "k", subjectKind: "Subject", groups: [UNAUTHENTICATED_GROUP], teams: [] };
    assert.equal(allowed(keyUser, resource("list", "teams")), true);
  });

  it("an authenticated caller without roles: get on non-resource paths, no other verb", () => {
    const user: UserInfo = { name: "nobody", subjectKind: "User", groups: [], teams: [] };
    assert.equal(allowed(user, nonResourceAttributes("get", "/kubernetes/management/apis")), true);
    for (const verb of ["post", "put", "patch", "delete", "create"]) {
      assert.equal(allowed(user, nonResourceAttributes(verb, "/version")), false, verb);
    }
  });
});
