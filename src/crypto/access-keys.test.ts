import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { ACCESS_KEY_LENGTH, constantTimeEqual, generateAccessKey, hashAccessKey } from "./access-keys.js";

describe("generateAccessKey", () => {
  it("makes at least 40 alphanumerics", () => {
    const key = generateAccessKey();
    assert.equal(key.length, ACCESS_KEY_LENGTH);
    assert.ok(key.length >= 40);
    assert.match(key, /^[A-Za-z0-9]+$/);
  });

  it("honours a requested length and refuses short ones", () => {
    assert.equal(generateAccessKey(64).length, 64);
    assert.equal(generateAccessKey(40).length, 40);
    assert.throws(() => generateAccessKey(39), RangeError);
    assert.throws(() => generateAccessKey(40.5), RangeError);
  });

  it("does not repeat and uses the whole alphabet", () => {
    const keys = new Set<string>();
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const key = generateAccessKey();
      keys.add(key);
      for (const c of key) seen.add(c);
    }
    assert.equal(keys.size, 200);
    // 9,600 draws from 62 symbols: the chance that any symbol never appears is negligible (< 1e-60).
    assert.equal(seen.size, 62);
  });
});

describe("hashAccessKey", () => {
  it("is the hex SHA-256 of the key", () => {
    const key = generateAccessKey();
    const expected = createHash("sha256").update(key).digest("hex");
    assert.equal(hashAccessKey(key), expected);
    assert.match(hashAccessKey(key), /^[0-9a-f]{64}$/);
    assert.notEqual(hashAccessKey(key), hashAccessKey(`${key}x`));
  });

  it("matches a known vector", () => {
    assert.equal(hashAccessKey("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("constantTimeEqual", () => {
  it("compares strings and buffers", () => {
    assert.equal(constantTimeEqual("secret", "secret"), true);
    assert.equal(constantTimeEqual("secret", "secreT"), false);
    assert.equal(constantTimeEqual("secret", "secret-but-longer"), false);
    assert.equal(constantTimeEqual("", ""), true);
    assert.equal(constantTimeEqual("", "x"), false);
    assert.equal(constantTimeEqual(Buffer.from("abc"), Buffer.from("abc")), true);
    assert.equal(constantTimeEqual(Buffer.from("abc"), "abc"), true);
  });

  it("compares stored hashes", () => {
    const key = generateAccessKey();
    const stored = hashAccessKey(key);
    assert.equal(constantTimeEqual(hashAccessKey(key), stored), true);
    assert.equal(constantTimeEqual(hashAccessKey(generateAccessKey()), stored), false);
  });
});
