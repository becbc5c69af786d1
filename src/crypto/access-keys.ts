/**
 * Access key values: generation, hashing for storage, and comparison.
 */
import { createHash, hash, randomBytes, timingSafeEqual } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/**
 * Bytes at or above this are rejected: 248 is the largest multiple of 62 that
 * fits in a byte, so `byte % 62` over [0, 248) hits every character exactly 4
 * times — no modulo bias.
 */
const REJECT_FROM = 256 - (256 % ALPHABET.length);

/** Length of generated keys: 48 × log2(62) ≈ 285 bits of entropy (the spec asks for at least 40 characters). */
export const ACCESS_KEY_LENGTH = 48;

/** A fresh random access key of `length` alphanumerics (at least 40). */
export function generateAccessKey(length: number = ACCESS_KEY_LENGTH): string {
  if (!Number.isInteger(length) || length < 40) {
    throw new RangeError(`access key length must be an integer of at least 40, got ${length}`);
  }
  let key = "";
  while (key.length < length) {
    // Ask for a little more than needed since about 3% of bytes are rejected.
    for (const byte of randomBytes(length - key.length + 8)) {
      if (byte >= REJECT_FROM) continue;
      key += ALPHABET[byte % ALPHABET.length];
      if (key.length === length) break;
    }
  }
  return key;
}

/**
 * The form in which access keys are stored: hex SHA-256 of the key.
 *
 * A fast unsalted hash is right here, unlike for passwords: generated keys carry
 * ~285 bits of entropy and user-given ones at least 32 characters, so neither
 * brute force nor precomputed tables are feasible against a leaked hash, and a
 * slow KDF (bcrypt, scrypt) would only add cost to every authenticated request.
 * Being deterministic also lets the server find a key by its hash in one lookup.
 */
export function hashAccessKey(key: string): string {
  // One-shot crypto.hash: every authenticated request pays this, and it skips a Hash object.
  return hash("sha256", key, "hex");
}

/**
 * Compares two secrets (or hashes of secrets) in time independent of where they
 * differ. Both sides are hashed first so the inputs' lengths do not have to match
 * and the comparison does not reveal how long the expected value is.
 */
export function constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const da = createHash("sha256").update(a).digest();
  const db = createHash("sha256").update(b).digest();
  // Distinct inputs with equal SHA-256 digests are not a practical concern.
  return timingSafeEqual(da, db);
}
