/**
 * Tokens the server signs itself (direct cluster endpoint tokens): ES256 JWTs
 * from a P-256 key kept in the data directory. The public half is published as a
 * JWKS (`/.well-known/jwks.json`) so other parties can verify tokens offline.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { join } from "node:path";
import type { CryptoKey, JSONWebKeySet, JWK, JWTPayload } from "jose";
import { calculateJwkThumbprint, errors, importJWK, importPKCS8, jwtVerify, SignJWT } from "jose";
import { PRIVATE_FILE_MODE, readTextIfExists, writeFileAtomic } from "./files.js";

/** Name of the signing key file in the data directory (PKCS#8 PEM, mode 0600). */
export const SIGNING_KEY_FILE_NAME = "token-signing-key.pem";
/** The `iss` of tokens when no issuer is configured. */
export const DEFAULT_ISSUER = "platform";

const ALG = "ES256";
/** Claims the signer owns; a caller setting them would be silently overridden otherwise. */
const RESERVED_CLAIMS = ["iss", "iat", "exp"] as const;

/** What a caller puts into a token: the subject and anything else (e.g. a scope) except iss/iat/exp. */
export interface TokenClaims extends JWTPayload {
  sub: string;
  scope?: unknown;
}

/** The claims of a token that verified; iss/iat/exp are always present. */
export interface VerifiedClaims extends TokenClaims {
  iss: string;
  iat: number;
  exp: number;
}

export interface SigningKeyOptions {
  /** `iss` of the tokens signed and required of tokens verified. Default "platform". */
  issuer?: string;
  /** The clock, for both issuing and verifying; tests pass a fixed one. */
  now?: () => Date;
}

/** A token was refused. `reason` lets the caller say "expired" apart from everything else. */
export class InvalidTokenError extends Error {
  constructor(
    readonly reason: "expired" | "invalid",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "InvalidTokenError";
  }
}

export class TokenSigner {
  readonly #privateKey: CryptoKey;
  readonly #publicKey: CryptoKey;
  readonly #publicJwk: JWK;
  readonly #now: () => Date;
  /** RFC 7638 thumbprint of the public key: stable across restarts, changes with the key. */
  readonly keyId: string;
  readonly issuer: string;

  /** Use loadOrCreateSigningKey. */
  constructor(params: {
    privateKey: CryptoKey;
    publicKey: CryptoKey;
    publicJwk: JWK;
    keyId: string;
    issuer: string;
    now: () => Date;
  }) {
    this.#privateKey = params.privateKey;
    this.#publicKey = params.publicKey;
    this.#publicJwk = params.publicJwk;
    this.#now = params.now;
    this.keyId = params.keyId;
    this.issuer = params.issuer;
  }

  /** A compact JWS with header `alg: ES256`, `kid`, and claims `iss`, `iat`, `exp` = iat + ttlSeconds plus `claims`. */
  async signToken(claims: TokenClaims, ttlSeconds: number): Promise<string> {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) {
      throw new RangeError(`token ttl must be a positive whole number of seconds, got ${ttlSeconds}`);
    }
    if (typeof claims.sub !== "string" || claims.sub === "") throw new TypeError("a token needs a subject (sub)");
    for (const claim of RESERVED_CLAIMS) {
      if (claim in claims) throw new TypeError(`claim ${claim} is set by the signer, not the caller`);
    }
    const iat = Math.floor(this.#now().getTime() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ALG, kid: this.keyId, typ: "JWT" })
      .setIssuer(this.issuer)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlSeconds)
      .sign(this.#privateKey);
  }

  /** The claims of a token this signer issued; throws InvalidTokenError for a bad signature, wrong issuer, or expiry. */
  async verifyToken(token: string): Promise<VerifiedClaims> {
    try {
      const { payload } = await jwtVerify(token, this.#publicKey, {
        algorithms: [ALG],
        issuer: this.issuer,
        requiredClaims: ["sub", "iat", "exp"],
        currentDate: this.#now(),
      });
      if (typeof payload.sub !== "string" || payload.sub === "")
        throw new InvalidTokenError("invalid", "empty subject");
      return payload as VerifiedClaims;
    } catch (err) {
      if (err instanceof InvalidTokenError) throw err;
      if (err instanceof errors.JWTExpired) throw new InvalidTokenError("expired", "token has expired", { cause: err });
      if (err instanceof errors.JOSEError) {
        throw new InvalidTokenError("invalid", `token is not valid: ${err.message}`, { cause: err });
      }
      throw err;
    }
  }

  /** The JSON Web Key Set with the public key, for `/.well-known/jwks.json`. A fresh object each call. */
  jwks(): JSONWebKeySet {
    return { keys: [{ ...this.#publicJwk, kid: this.keyId, alg: ALG, use: "sig" }] };
  }
}

/**
 * The token signer, with its key in `<dataDir>/token-signing-key.pem`: generated
 * (mode 0600) on first start, reused afterwards so tokens already issued stay
 * valid across restarts.
 */
export async function loadOrCreateSigningKey(dataDir: string, options: SigningKeyOptions = {}): Promise<TokenSigner> {
  const path = join(dataDir, SIGNING_KEY_FILE_NAME);
  let pem = readTextIfExists(path);
  if (pem === undefined) {
    // Node's generator rather than jose's: it gives the PKCS#8 PEM directly.
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    writeFileAtomic(path, pem, PRIVATE_FILE_MODE);
  }

  const keyObject = createPrivateKey(pem);
  if (keyObject.asymmetricKeyType !== "ec" || keyObject.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new Error(`token signing key ${path} must be an EC P-256 private key (ES256)`);
  }
  // Normalised to PKCS#8 so an "EC PRIVATE KEY" (SEC1) file an operator supplies also loads.
  const privateKey = await importPKCS8(keyObject.export({ type: "pkcs8", format: "pem" }).toString(), ALG);
  const exported = createPublicKey(keyObject).export({ format: "jwk" });
  const publicJwk: JWK = { kty: exported.kty, crv: exported.crv, x: exported.x, y: exported.y };
  const publicKey = await importJWK(publicJwk, ALG);
  if (!isCryptoKey(publicKey)) throw new Error("unexpected key type from importJWK");
  return new TokenSigner({
    privateKey,
    publicKey,
    publicJwk,
    keyId: await calculateJwkThumbprint(publicJwk, "sha256"),
    issuer: options.issuer ?? DEFAULT_ISSUER,
    now: options.now ?? (() => new Date()),
  });
}

/** importJWK returns raw bytes only for symmetric ("oct") keys, which this module never imports. */
function isCryptoKey(key: CryptoKey | Uint8Array): key is CryptoKey {
  return !(key instanceof Uint8Array);
}
