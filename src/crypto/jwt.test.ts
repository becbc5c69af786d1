import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import {
  DEFAULT_ISSUER,
  InvalidTokenError,
  loadOrCreateSigningKey,
  SIGNING_KEY_FILE_NAME,
  type TokenSigner,
} from "./jwt.js";

function assertInvalid(reason: "expired" | "invalid") {
  return (err: unknown): boolean => {
    assert.ok(err instanceof InvalidTokenError, String(err));
    assert.equal(err.reason, reason);
    return true;
  };
}

/** Replaces one character of the token's segment `part` (0 header, 1 payload, 2 signature). */
function tamper(token: string, part: number): string {
  const parts = token.split(".");
  const segment = parts[part]!;
  const i = Math.floor(segment.length / 2);
  parts[part] = segment.slice(0, i) + (segment[i] === "A" ? "B" : "A") + segment.slice(i + 1);
  return parts.join(".");
}

describe("token signing", () => {
  let dir: string;
  let signer: TokenSigner;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "platform-jwt-"));
    signer = await loadOrCreateSigningKey(dir);
  });

  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the key in the data dir with mode 0600 and reuses it", async () => {
    const path = join(dir, SIGNING_KEY_FILE_NAME);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.match(readFileSync(path, "utf8"), /^-----BEGIN PRIVATE KEY-----\n/);
    const token = await signer.signToken({ sub: "alice" }, 60);
    const again = await loadOrCreateSigningKey(dir);
    assert.equal(again.keyId, signer.keyId);
    assert.equal((await again.verifyToken(token)).sub, "alice");
  });

  it("round-trips claims with kid, iss, iat and exp", async () => {
    const scope = { clusters: ["c1"], verbs: ["get"] };
    const token = await signer.signToken({ sub: "team:ops", scope, extra: 1 }, 1800);
    const header = decodeProtectedHeader(token);
    assert.equal(header.alg, "ES256");
    assert.equal(header.kid, signer.keyId);
    const claims = await signer.verifyToken(token);
    assert.equal(claims.sub, "team:ops");
    assert.deepEqual(claims.scope, scope);
    assert.equal(claims.extra, 1);
    assert.equal(claims.iss, DEFAULT_ISSUER);
    assert.equal(claims.exp - claims.iat, 1800);
  });

  it("takes iat from its clock", async () => {
    const fixed = new Date("2030-01-01T00:00:00Z");
    const future = await loadOrCreateSigningKey(dir, { now: () => fixed });
    const claims = await future.verifyToken(await future.signToken({ sub: "alice" }, 60));
    assert.equal(claims.iat, fixed.getTime() / 1000);
    assert.equal(claims.exp, fixed.getTime() / 1000 + 60);
  });

  it("refuses an expired token", async () => {
    // Issued two hours ago for one hour, by a signer sharing the key but with a clock set back.
    const past = await loadOrCreateSigningKey(dir, { now: () => new Date(Date.now() - 2 * 3600_000) });
    const token = await past.signToken({ sub: "alice" }, 3600);
    await assert.rejects(signer.verifyToken(token), assertInvalid("expired"));
    // The same token is fine at a time within its lifetime.
    assert.equal((await past.verifyToken(token)).sub, "alice");
  });

  it("refuses tampered tokens", async () => {
    const token = await signer.signToken({ sub: "alice", scope: "read" }, 60);
    for (const part of [0, 1, 2]) {
      await assert.rejects(signer.verifyToken(tamper(token, part)), assertInvalid("invalid"));
    }
    // A payload swapped for another subject's, with the original signature.
    const [header, , signature] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ sub: "admin", iss: DEFAULT_ISSUER, iat: 1, exp: 4e9 })).toString(
      "base64url",
    );
    await assert.rejects(signer.verifyToken(`${header}.${forged}.${signature}`), assertInvalid("invalid"));
    await assert.rejects(signer.verifyToken("not a token"), assertInvalid("invalid"));
  });

  it("refuses tokens from another key or issuer", async () => {
    const otherDir = mkdtempSync(join(tmpdir(), "platform-jwt-"));
    try {
      const other = await loadOrCreateSigningKey(otherDir);
      assert.notEqual(other.keyId, signer.keyId);
      await assert.rejects(signer.verifyToken(await other.signToken({ sub: "alice" }, 60)), assertInvalid("invalid"));
      const elsewhere = await loadOrCreateSigningKey(dir, { issuer: "https://elsewhere.example.test" });
      await assert.rejects(
        signer.verifyToken(await elsewhere.signToken({ sub: "alice" }, 60)),
        assertInvalid("invalid"),
      );
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it("refuses bad input when signing", async () => {
    await assert.rejects(signer.signToken({ sub: "alice" }, 0), RangeError);
    await assert.rejects(signer.signToken({ sub: "alice" }, 1.5), RangeError);
    await assert.rejects(signer.signToken({ sub: "" }, 60), TypeError);
    await assert.rejects(signer.signToken({ sub: "alice", exp: 4e9 }, 60), /set by the signer/);
    await assert.rejects(signer.signToken({ sub: "alice", iss: "me" }, 60), /set by the signer/);
  });

  it("publishes a JWKS that verifies its tokens and holds no private part", async () => {
    const jwks = signer.jwks();
    assert.equal(jwks.keys.length, 1);
    const [jwk] = jwks.keys;
    assert.equal(jwk!.kty, "EC");
    assert.equal(jwk!.crv, "P-256");
    assert.equal(jwk!.kid, signer.keyId);
    assert.equal(jwk!.alg, "ES256");
    assert.equal(jwk!.use, "sig");
    assert.equal("d" in jwk!, false);
    // Round trip through JSON, as a client fetching /.well-known/jwks.json would see it.
    const keySet = createLocalJWKSet(JSON.parse(JSON.stringify(jwks)));
    const token = await signer.signToken({ sub: "alice", scope: "clusters" }, 60);
    const { payload, protectedHeader } = await jwtVerify(token, keySet, { issuer: DEFAULT_ISSUER });
    assert.equal(payload.sub, "alice");
    assert.equal(protectedHeader.kid, signer.keyId);
    await assert.rejects(jwtVerify(tamper(token, 2), keySet));
    // Mutating one answer does not change the next.
    jwk!.kid = "changed";
    assert.equal(signer.jwks().keys[0]!.kid, signer.keyId);
  });

  it("accepts an operator's SEC1 P-256 key and refuses other key types", async () => {
    const sec1Dir = mkdtempSync(join(tmpdir(), "platform-jwt-"));
    try {
      const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
      writeFileSync(join(sec1Dir, SIGNING_KEY_FILE_NAME), privateKey.export({ type: "sec1", format: "pem" }));
      const sec1 = await loadOrCreateSigningKey(sec1Dir);
      assert.equal((await sec1.verifyToken(await sec1.signToken({ sub: "alice" }, 60))).sub, "alice");

      const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
      writeFileSync(join(sec1Dir, SIGNING_KEY_FILE_NAME), rsa.privateKey.export({ type: "pkcs8", format: "pem" }));
      await assert.rejects(loadOrCreateSigningKey(sec1Dir), /must be an EC P-256 private key/);
    } finally {
      rmSync(sec1Dir, { recursive: true, force: true });
    }
  });
});
