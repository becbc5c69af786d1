import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { identityFromClaims, isAllowed, SsoRefusal, userNameFor } from "./claims.js";
import type { OidcConfig } from "./config.js";

const settings: OidcConfig = {
  issuerUrl: "https://idp.example.com",
  clientId: "platform",
  usernameClaim: "preferred_username",
  groupsClaim: "groups",
  scopes: ["openid"],
  allowedGroups: [],
  loginKeyTtlSeconds: 60,
  refreshIntervalSeconds: 60,
};

describe("claims to identity", () => {
  it("reads the username claim, then email, then sub", () => {
    const base = { iss: "https://idp.example.com", sub: "s-1" };
    assert.equal(
      identityFromClaims({ ...base, preferred_username: "Alice", email: "a@x.io" }, settings).username,
      "Alice",
    );
    assert.equal(identityFromClaims({ ...base, email: "a@x.io" }, settings).username, "a@x.io");
    assert.equal(identityFromClaims(base, settings).username, "s-1");
    const byEmail = identityFromClaims(
      { ...base, preferred_username: "p", email: "e@x.io" },
      {
        ...settings,
        usernameClaim: "email",
      },
    );
    assert.equal(byEmail.username, "e@x.io");
  });

  it("makes the username a valid user name", () => {
    assert.equal(userNameFor("Alice@Example.com"), "alice-example.com");
    assert.equal(userNameFor("  --bob_smith--  "), "bob-smith");
    assert.equal(userNameFor("a..b"), "a.b");
    assert.equal(userNameFor("@@@"), "");
    assert.ok(userNameFor("x".repeat(300)).length <= 253);
  });

  it("refuses a token without subject or a username that maps to nothing", () => {
    assert.throws(() => identityFromClaims({ preferred_username: "a" }, settings), SsoRefusal);
    assert.throws(() => identityFromClaims({ sub: "s", preferred_username: "@@@" }, settings), /cannot be made/);
  });

  it("reads groups from the configured claim: a list of strings, or one string", () => {
    const claims = { sub: "s", preferred_username: "a", groups: ["b", "a", "a", 3, ""], roles: "admins" };
    assert.deepEqual(identityFromClaims(claims, settings).groups, ["a", "b"]);
    assert.deepEqual(identityFromClaims(claims, { ...settings, groupsClaim: "roles" }).groups, ["admins"]);
    assert.deepEqual(identityFromClaims({ sub: "s", groups: { a: 1 } }, settings).groups, []);
  });

  it("lets in members of an allowed group only, when the list is set", () => {
    const identity = identityFromClaims({ sub: "s", groups: ["devs"] }, settings);
    assert.equal(isAllowed(identity, settings), true);
    assert.equal(isAllowed(identity, { ...settings, allowedGroups: ["ops"] }), false);
    assert.equal(isAllowed(identity, { ...settings, allowedGroups: ["ops", "devs"] }), true);
  });
});
