import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  DecryptionError,
  ENCRYPTION_KEY_FILE_NAME,
  type EncryptionKey,
  generateEncryptionKeySecret,
  isEncrypted,
  loadOrCreateEncryptionKeys,
  SecretBox,
} from "./secret-box.js";

function key(name: string): EncryptionKey {
  return { name, secret: randomBytes(32) };
}

function writeKeyFile(path: string, keys: EncryptionKey[]): void {
  const json = { keys: keys.map((k) => ({ name: k.name, secret: k.secret.toString("base64") })) };
  writeFileSync(path, JSON.stringify(json), { mode: 0o600 });
}

/** Flips one bit of the base64 payload's decoded bytes at `index` (negative counts from the end). */
function tamper(value: string, index: number): string {
  const cut = value.lastIndexOf(":") + 1;
  const data = Buffer.from(value.slice(cut), "base64");
  const i = index < 0 ? data.length + index : index;
  data[i] = data[i]! ^ 0x01;
  return value.slice(0, cut) + data.toString("base64");
}

function assertDecryptionError(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof DecryptionError, String(err));
    assert.match(err.message, message);
    return true;
  });
}

describe("SecretBox", () => {
  it("round-trips data in the self-describing form", () => {
    const box = new SecretBox([key("k1")]);
    for (const plaintext of [Buffer.alloc(0), Buffer.from("hunter2"), randomBytes(100_000)]) {
      const value = box.encrypt(plaintext);
      assert.match(value, /^enc:v1:k1:[A-Za-z0-9+/]+={0,2}$/);
      assert.equal(isEncrypted(value), true);
      assert.deepEqual(box.decrypt(value), plaintext);
    }
  });

  it("uses a fresh IV each time", () => {
    const box = new SecretBox([key("k1")]);
    const plaintext = Buffer.from("same");
    assert.notEqual(box.encrypt(plaintext), box.encrypt(plaintext));
  });

  it("does not reveal the plaintext", () => {
    const box = new SecretBox([key("k1")]);
    const value = box.encrypt(Buffer.from("very-secret-password"));
    assert.ok(!value.includes("very-secret-password"));
    assert.ok(!Buffer.from(value.split(":")[3]!, "base64").includes("very-secret-password"));
  });

  it("detects tampering with the IV, ciphertext, tag or key id", () => {
    const box = new SecretBox([key("k1"), key("k2")]);
    const value = box.encrypt(Buffer.from("payload"));
    for (const index of [0, 12, -1]) {
      assertDecryptionError(() => box.decrypt(tamper(value, index)), /failed authentication with key k1/);
    }
    // Relabelled to another loaded key: that key's secret does not match.
    assertDecryptionError(() => box.decrypt(value.replace(":k1:", ":k2:")), /failed authentication with key k2/);
    // Cut short.
    assertDecryptionError(() => box.decrypt(`enc:v1:k1:${Buffer.alloc(20).toString("base64")}`), /truncated/);
  });

  it("binds a value to its context", () => {
    const box = new SecretBox([key("k1")]);
    const value = box.encrypt(Buffer.from("payload"), "/secrets/ns-a/one");
    assert.deepEqual(box.decrypt(value, "/secrets/ns-a/one"), Buffer.from("payload"));
    assertDecryptionError(() => box.decrypt(value, "/secrets/ns-b/one"), /failed authentication/);
    assertDecryptionError(() => box.decrypt(value), /failed authentication/);
  });

  it("fails clearly with the wrong key or an unknown key", () => {
    const value = new SecretBox([key("k1")]).encrypt(Buffer.from("payload"));
    // Same name, different secret: the key file was replaced rather than rotated.
    assertDecryptionError(() => new SecretBox([key("k1")]).decrypt(value), /failed authentication with key k1/);
    assertDecryptionError(
      () => new SecretBox([key("k9")]).decrypt(value),
      /encrypted with key k1, which is not in the encryption key file \(loaded: k9\)/,
    );
    const err = (() => {
      try {
        new SecretBox([key("k9")]).decrypt(value);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof DecryptionError && err.keyId === "k1");
  });

  it("rejects values that are not encrypted", () => {
    const box = new SecretBox([key("k1")]);
    assert.equal(isEncrypted("plain text"), false);
    assert.equal(isEncrypted("enc:v1:k1:"), false);
    assert.equal(isEncrypted("enc:v2:k1:AAAA"), false);
    assertDecryptionError(() => box.decrypt("plain text"), /not an encrypted value/);
    assertDecryptionError(() => box.decrypt("enc:v1:k1:not base64!"), /not an encrypted value/);
  });

  it("validates keys", () => {
    assert.throws(() => new SecretBox([]), /at least one/);
    assert.throws(() => new SecretBox([{ name: "k1", secret: randomBytes(16) }]), /32 bytes/);
    assert.throws(() => new SecretBox([{ name: "a:b", secret: randomBytes(32) }]), /must match/);
    assert.throws(() => new SecretBox([key("k1"), key("k1")]), /listed twice/);
  });

  it("rotates: old data still decrypts, new writes use the new primary", () => {
    const oldKey = key("old");
    const newKey = key("new");
    const before = new SecretBox([oldKey]);
    const stored = before.encrypt(Buffer.from("written before rotation"));

    const during = new SecretBox([newKey, oldKey]);
    assert.equal(during.primaryKeyId, "new");
    assert.deepEqual(during.keyIds, ["new", "old"]);
    assert.deepEqual(during.decrypt(stored), Buffer.from("written before rotation"));
    assert.equal(during.needsReencryption(stored), true);
    const rewritten = during.encrypt(during.decrypt(stored));
    assert.match(rewritten, /^enc:v1:new:/);
    assert.equal(during.needsReencryption(rewritten), false);
    assert.equal(during.needsReencryption("plaintext from before encryption"), true);

    const after = new SecretBox([newKey]);
    assert.deepEqual(after.decrypt(rewritten), Buffer.from("written before rotation"));
    assertDecryptionError(() => after.decrypt(stored), /encrypted with key old/);
  });
});

describe("loadOrCreateEncryptionKeys", () => {
  let dir: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "platform-keys-"));
  });

  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates a key file in the data dir with mode 0600 and reuses it", () => {
    const dataDir = join(dir, "data");
    const first = loadOrCreateEncryptionKeys({ dataDir });
    const path = join(dataDir, ENCRYPTION_KEY_FILE_NAME);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const parsed = JSON.parse(readFileSync(path, "utf8")) as { keys: { name: string; secret: string }[] };
    assert.equal(parsed.keys.length, 1);
    assert.equal(parsed.keys[0]!.name, first.primaryKeyId);
    assert.equal(Buffer.from(parsed.keys[0]!.secret, "base64").length, 32);

    const value = first.encrypt(Buffer.from("kept across restarts"));
    const second = loadOrCreateEncryptionKeys({ dataDir });
    assert.deepEqual(second.decrypt(value), Buffer.from("kept across restarts"));
  });

  it("reads an operator's key file and does not create a missing one", () => {
    const keyFile = join(dir, "operator-keys.json");
    assert.throws(() => loadOrCreateEncryptionKeys({ keyFile }), /does not exist/);
    assert.equal(existsSync(keyFile), false);

    const k1 = key("k1");
    writeKeyFile(keyFile, [k1]);
    const box = loadOrCreateEncryptionKeys({ keyFile });
    assert.equal(box.primaryKeyId, "k1");
    assert.deepEqual(new SecretBox([k1]).decrypt(box.encrypt(Buffer.from("x"))), Buffer.from("x"));
  });

  it("follows the rotation steps through the key file", () => {
    const keyFile = join(dir, "rotation-keys.json");
    const k1 = key("k1");
    const k2 = key("k2");
    writeKeyFile(keyFile, [k1]);
    const stored = loadOrCreateEncryptionKeys({ keyFile }).encrypt(Buffer.from("secret data"));

    // 1. Add the new key first; restart.
    writeKeyFile(keyFile, [k2, k1]);
    const rotating = loadOrCreateEncryptionKeys({ keyFile });
    assert.deepEqual(rotating.decrypt(stored), Buffer.from("secret data"));
    // 2. Rewrite the data: it is now under the new key.
    const rewritten = rotating.encrypt(rotating.decrypt(stored));
    assert.match(rewritten, /^enc:v1:k2:/);
    // 3. Remove the old key; restart.
    writeKeyFile(keyFile, [k2]);
    const rotated = loadOrCreateEncryptionKeys({ keyFile });
    assert.deepEqual(rotated.decrypt(rewritten), Buffer.from("secret data"));
    assertDecryptionError(() => rotated.decrypt(stored), /encrypted with key k1/);
  });

  it("reports malformed key files with the path", () => {
    const keyFile = join(dir, "bad-keys.json");
    const cases: [string, RegExp][] = [
      ["not json", /not valid JSON/],
      ["{}", /at least one key/],
      ['{"keys": []}', /at least one key/],
      ['{"keys": [{"name": "k1"}]}', /"name" and "secret"/],
      ['{"keys": [{"name": "k1", "secret": "!!!"}]}', /not base64/],
      [`{"keys": [{"name": "k1", "secret": "${randomBytes(16).toString("base64")}"}]}`, /32 bytes, got 16/],
      [`{"keys": [{"name": "a b", "secret": "${generateEncryptionKeySecret()}"}]}`, /"name" must match/],
      [
        `{"keys": [{"name": "k1", "secret": "${generateEncryptionKeySecret()}"}, {"name": "k1", "secret": "${generateEncryptionKeySecret()}"}]}`,
        /listed twice/,
      ],
    ];
    for (const [text, message] of cases) {
      writeFileSync(keyFile, text);
      assert.throws(
        () => loadOrCreateEncryptionKeys({ keyFile }),
        (err) => {
          assert.ok(err instanceof Error);
          assert.match(err.message, message);
          assert.ok(err.message.includes(keyFile), err.message);
          return true;
        },
      );
    }
  });

  it("generates 32-byte base64 secrets", () => {
    const secret = generateEncryptionKeySecret();
    assert.equal(Buffer.from(secret, "base64").length, 32);
    assert.notEqual(secret, generateEncryptionKeySecret());
  });
});
