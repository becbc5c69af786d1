/**
 * Encryption at rest for secret data: AES-256-GCM with named keys read from a key
 * file. The first key encrypts; every key listed decrypts. That is how rotation
 * works: put a new key first and restart (new writes use it, old data still reads),
 * rewrite the stored secrets, then remove the old key and restart again.
 *
 * Encrypted values are self-describing strings, `enc:v1:<keyId>:<base64>`, where
 * the base64 holds iv (12 bytes) | ciphertext | GCM tag (16 bytes), so a value
 * names the key it needs and the format can change under a new version tag.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { join } from "node:path";
import { PRIVATE_FILE_MODE, readTextIfExists, writeFileAtomic } from "./files.js";

/** Name of the key file kept in the data directory when no explicit key file is given. */
export const ENCRYPTION_KEY_FILE_NAME = "encryption-keys.json";

const PREFIX = "enc:v1:";
const KEY_BYTES = 32;
// 96-bit random IVs: GCM's recommended size. Random IVs stay safe for about 2^32
// encryptions per key, far beyond the secrets this server writes between rotations.
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const ENCRYPTED = /^enc:v1:[A-Za-z0-9_.-]{1,64}:[A-Za-z0-9+/]+={0,2}$/;

export interface EncryptionKey {
  /** Letters, digits, `_`, `.`, `-` (up to 64); written into every value it encrypts. */
  name: string;
  /** 32 bytes. */
  secret: Buffer;
}

/** Where the keys come from: the data directory (file created on first use) or an operator's key file (must exist). */
export type EncryptionKeySource = { dataDir: string } | { keyFile: string };

/** A value cannot be decrypted: malformed, encrypted with a key not loaded, or altered (or the key's secret changed). */
export class DecryptionError extends Error {
  constructor(
    message: string,
    readonly keyId?: string,
  ) {
    super(message);
    this.name = "DecryptionError";
  }
}

/** Whether `value` has the form `encrypt` produces (it says nothing about whether it decrypts). */
export function isEncrypted(value: string): boolean {
  return ENCRYPTED.test(value);
}

export class SecretBox {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #primary: string;

  constructor(keys: readonly EncryptionKey[]) {
    if (keys.length === 0) throw new TypeError("at least one encryption key is needed");
    const map = new Map<string, Buffer>();
    for (const key of keys) {
      if (!KEY_NAME.test(key.name)) {
        throw new TypeError(`encryption key name ${JSON.stringify(key.name)} must match ${KEY_NAME.source}`);
      }
      if (key.secret.length !== KEY_BYTES) {
        throw new TypeError(`encryption key ${key.name} must be ${KEY_BYTES} bytes, got ${key.secret.length}`);
      }
      if (map.has(key.name)) throw new TypeError(`encryption key name ${key.name} is listed twice`);
      // Copy so a caller reusing its buffer cannot change a key under us.
      map.set(key.name, Buffer.from(key.secret));
    }
    this.#keys = map;
    this.#primary = keys[0]!.name;
  }

  /** The key new values are encrypted with. */
  get primaryKeyId(): string {
    return this.#primary;
  }

  /** Every key that can decrypt, primary first. */
  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  /**
   * Encrypts `plaintext` with the primary key. `context` (optional) is
   * authenticated but not stored: pass something that identifies where the value
   * lives (e.g. the object's storage key) so a value copied to another place fails
   * to decrypt there; the same context must then be given to `decrypt`.
   */
  encrypt(plaintext: Buffer, context = ""): string {
    const header = `${PREFIX}${this.#primary}:`;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#keys.get(this.#primary)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(header, context));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return header + Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString("base64");
  }

  /** The plaintext of a value from `encrypt`; throws DecryptionError when it cannot be recovered intact. */
  decrypt(value: string, context = ""): Buffer {
    if (!isEncrypted(value)) throw new DecryptionError(`not an encrypted value (expected ${PREFIX}<keyId>:<data>)`);
    const separator = value.indexOf(":", PREFIX.length);
    const keyId = value.slice(PREFIX.length, separator);
    const key = this.#keys.get(keyId);
    if (key === undefined) {
      throw new DecryptionError(
        `value was encrypted with key ${keyId}, which is not in the encryption key file (loaded: ${this.keyIds.join(", ")})`,
        keyId,
      );
    }
    const data = Buffer.from(value.slice(separator + 1), "base64");
    if (data.length < IV_BYTES + TAG_BYTES) throw new DecryptionError(`encrypted value is truncated`, keyId);
    const decipher = createDecipheriv("aes-256-gcm", key, data.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(value.slice(0, separator + 1), context));
    decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new DecryptionError(
        `encrypted value failed authentication with key ${keyId}: it was altered, belongs elsewhere, or the key's secret changed`,
        keyId,
      );
    }
  }

  /** Whether `value` should be rewritten during rotation: it is not encrypted, or not with the primary key. */
  needsReencryption(value: string): boolean {
    return !isEncrypted(value) || !value.startsWith(`${PREFIX}${this.#primary}:`);
  }
}

/** A new random 32-byte key in the key file's base64 form (what `openssl rand -base64 32` prints). */
export function generateEncryptionKeySecret(): string {
  return randomBytes(KEY_BYTES).toString("base64");
}

/**
 * Reads the encryption keys and returns a SecretBox using them. Key file format:
 *
 *     { "keys": [ { "name": "key-20250101", "secret": "<base64 of 32 bytes>" }, ... ] }
 *
 * With `{ dataDir }` the file is `<dataDir>/encryption-keys.json`, created with one
 * random key (mode 0600) on first start. With `{ keyFile }` (the server's
 * `--encryption-key-file`) the file must exist: creating a fresh key because of a
 * mistyped path would leave every stored secret undecryptable.
 */
export function loadOrCreateEncryptionKeys(source: EncryptionKeySource): SecretBox {
  const path = "keyFile" in source ? source.keyFile : join(source.dataDir, ENCRYPTION_KEY_FILE_NAME);
  let text = readTextIfExists(path);
  if (text === undefined) {
    if ("keyFile" in source) throw new Error(`encryption key file ${path} does not exist`);
    const name = `key-${new Date().toISOString().slice(0, 10).replaceAll("-", "")}`;
    text = `${JSON.stringify({ keys: [{ name, secret: generateEncryptionKeySecret() }] }, null, 2)}\n`;
    writeFileAtomic(path, text, PRIVATE_FILE_MODE);
  }
  const keys = parseKeyFile(text, path);
  try {
    return new SecretBox(keys);
  } catch (err) {
    throw new Error(`encryption key file ${path}: ${(err as Error).message}`);
  }
}

function parseKeyFile(text: string, path: string): EncryptionKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`encryption key file ${path} is not valid JSON: ${(err as Error).message}`);
  }
  const keys = isRecord(parsed) ? parsed.keys : undefined;
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new Error(
      `encryption key file ${path} must hold {"keys": [{"name": ..., "secret": ...}, ...]} with at least one key`,
    );
  }
  return keys.map((entry: unknown, i): EncryptionKey => {
    const where = `encryption key file ${path}, keys[${i}]`;
    if (!isRecord(entry) || typeof entry.name !== "string" || typeof entry.secret !== "string") {
      throw new Error(`${where}: needs string fields "name" and "secret"`);
    }
    // Strict base64 check: Buffer.from silently skips invalid characters.
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(entry.secret.trim())) throw new Error(`${where}: "secret" is not base64`);
    const secret = Buffer.from(entry.secret.trim(), "base64");
    if (secret.length !== KEY_BYTES) {
      throw new Error(`${where}: "secret" must decode to ${KEY_BYTES} bytes, got ${secret.length}`);
    }
    if (!KEY_NAME.test(entry.name)) throw new Error(`${where}: "name" must match ${KEY_NAME.source}`);
    return { name: entry.name, secret };
  });
}

/** The header binds the key id and format version into the tag; the context binds the value to its place. */
function associatedData(header: string, context: string): Buffer {
  return Buffer.from(header + context, "utf8");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
