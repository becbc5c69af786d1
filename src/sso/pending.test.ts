import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { OneTimeCodes, PendingLogins, pkceChallenge } from "./pending.js";

const key = { accessKey: "k".repeat(48), accessKeyName: "sso-abc", user: "alice" };

describe("pending sign-ins", () => {
  it("a state is taken once, and not after it expired", () => {
    const pending = new PendingLogins();
    const login = pending.begin(undefined, 1000);
    assert.notEqual(login.state, login.nonce);
    assert.equal(pending.take(login.state, 1001)?.codeVerifier, login.codeVerifier);
    assert.equal(pending.take(login.state, 1002), undefined);
    const late = pending.begin(undefined, 1000);
    assert.equal(pending.take(late.state, 1000 + 11 * 60 * 1000), undefined);
  });
});

describe("one-time codes", () => {
  const verifier = randomBytes(32).toString("base64url");

  it("give the key once, to the verifier of the challenge", () => {
    const codes = new OneTimeCodes();
    const code = codes.issue(key, pkceChallenge(verifier), 0);
    assert.deepEqual(codes.redeem(code, verifier, 1), key);
    assert.equal(codes.redeem(code, verifier, 2), undefined);
  });

  it("a wrong verifier uses the code up", () => {
    const codes = new OneTimeCodes();
    const code = codes.issue(key, pkceChallenge(verifier), 0);
    assert.equal(codes.redeem(code, `${verifier}x`, 1), undefined);
    assert.equal(codes.redeem(code, verifier, 2), undefined);
  });

  it("expire after a minute", () => {
    const codes = new OneTimeCodes();
    const code = codes.issue(key, pkceChallenge(verifier), 0);
    assert.equal(codes.redeem(code, verifier, 61_000), undefined);
  });
});
