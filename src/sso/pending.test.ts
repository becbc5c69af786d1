import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { SecretBox } from "../crypto/secret-box.js";
import { AdmissionChain } from "../registry/admission.js";
import type { KeptValueCipher } from "../registry/kept-keys.js";
import { Registry } from "../registry/registry.js";
import { entryId } from "../registry/sealed-entries.js";
import { SealedEntriesSweeper } from "../registry/sealed-entries-sweeper.js";
import type { Storage } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { OneTimeCodes, PendingLogins, pkceChallenge } from "./pending.js";

const key = { accessKey: "k".repeat(48), accessKeyName: "sso-abc", user: "alice" };

function cipherOf(box: SecretBox): KeptValueCipher {
  return {
    encrypt: (v) => box.encrypt(Buffer.from(v, "utf8")),
    decrypt: (v) => box.decrypt(v).toString("utf8"),
  };
}

const newBox = () => new SecretBox([{ name: "k1", secret: randomBytes(32) }]);

describe("sign-ins and codes kept in the store", () => {
  let storage: Storage;
  let cipher: KeptValueCipher;
  /** Two replicas: two registries on one store, sharing the encryption keys. */
  let one: Registry;
  let two: Registry;

  before(async () => {
    storage = openSqliteStorage(":memory:");
    cipher = cipherOf(newBox());
    one = new Registry(storage, [], new AdmissionChain([]));
    two = new Registry(storage, [], new AdmissionChain([]));
  });
  after(async () => {
    await storage.close();
  });

  async function storedValues(): Promise<string[]> {
    const { items } = await storage.list("/platform-internal/");
    return items.map((kv) => `${kv.key} ${kv.value.toString("utf8")}`);
  }

  it("a state begun on one replica is taken once on another, and not after it expired", async () => {
    const login = await new PendingLogins(one, cipher).begin(undefined, 1000);
    const other = new PendingLogins(two, cipher);
    assert.notEqual(login.state, login.nonce);
    assert.deepEqual(await other.take(login.state, 1001), login);
    assert.equal(await other.take(login.state, 1002), undefined);
    assert.equal(await new PendingLogins(one, cipher).take(login.state, 1003), undefined);
    const late = await new PendingLogins(one, cipher).begin(undefined, 1000);
    assert.equal(await other.take(late.state, 1000 + 10 * 60 * 1000), undefined);
    assert.deepEqual(await storedValues(), []);
  });

  it("stores the state only hashed, and nonce, verifier and CLI challenge only encrypted", async () => {
    const cli = { port: 40000, challenge: pkceChallenge("v".repeat(43)), state: "s".repeat(20) };
    const login = await new PendingLogins(one, cipher).begin(cli);
    const stored = (await storedValues()).join("\n");
    assert.ok(stored.includes(entryId(login.state)), stored);
    for (const secret of [login.state, login.nonce, login.codeVerifier, cli.challenge, cli.state]) {
      assert.ok(!stored.includes(secret), `${secret} is stored readable`);
    }
    assert.match(stored, /"sealed":"enc:v1:k1:/);
    assert.deepEqual(await new PendingLogins(two, cipher).take(login.state), login);
  });

  it("two concurrent takes of one state: exactly one gets it", async () => {
    const login = await new PendingLogins(one, cipher).begin(undefined);
    const results = await Promise.all([
      new PendingLogins(one, cipher).take(login.state),
      new PendingLogins(two, cipher).take(login.state),
    ]);
    assert.equal(results.filter((r) => r !== undefined).length, 1);
  });

  it("a replica without the encryption key cannot open a sign-in", async () => {
    const login = await new PendingLogins(one, cipher).begin(undefined);
    assert.equal(await new PendingLogins(two, cipherOf(newBox())).take(login.state), undefined);
  });

  it("the sweep removes expired sign-ins and codes only", async () => {
    const pending = new PendingLogins(one, cipher);
    const codes = new OneTimeCodes(one, cipher);
    const old = await pending.begin(undefined, 0);
    await codes.issue(key, pkceChallenge("x".repeat(43)), 0);
    const fresh = await pending.begin(undefined, 50_000_000);
    const sweeper = new SealedEntriesSweeper([pending.entries, codes.entries], (err) => assert.fail(String(err)));
    assert.equal(await sweeper.sweep(11 * 60 * 1000), 2);
    assert.equal(await pending.take(old.state, 0), undefined);
    assert.ok(await pending.take(fresh.state, 50_000_001));
    assert.deepEqual(await storedValues(), []);
  });

  it("beyond the bound, the sweep removes the entries that expire first", async () => {
    const pending = new PendingLogins(one, cipher);
    const logins = [await pending.begin(undefined, 2000), await pending.begin(undefined, 1000)];
    logins.push(await pending.begin(undefined, 3000));
    assert.equal(await pending.entries.sweep(0, 2), 1);
    assert.equal(await pending.take(logins[1]!.state, 0), undefined);
    assert.ok(await pending.take(logins[0]!.state, 0));
    assert.ok(await pending.take(logins[2]!.state, 0));
  });
});

describe("one-time codes", () => {
  const verifier = randomBytes(32).toString("base64url");
  let storage: Storage;
  let codes: OneTimeCodes;
  let otherReplica: OneTimeCodes;

  before(async () => {
    storage = openSqliteStorage(":memory:");
    const cipher = cipherOf(newBox());
    codes = new OneTimeCodes(new Registry(storage, [], new AdmissionChain([])), cipher);
    otherReplica = new OneTimeCodes(new Registry(storage, [], new AdmissionChain([])), cipher);
  });
  after(async () => {
    await storage.close();
  });

  it("give the key once, to the verifier of the challenge, on any replica", async () => {
    const code = await codes.issue(key, pkceChallenge(verifier), 0);
    assert.deepEqual(await otherReplica.redeem(code, verifier, 1), key);
    assert.equal(await codes.redeem(code, verifier, 2), undefined);
  });

  it("keep the key and code out of storage in clear", async () => {
    const code = await codes.issue(key, pkceChallenge(verifier), 0);
    const { items } = await storage.list("/platform-internal/");
    const stored = items.map((kv) => `${kv.key} ${kv.value.toString("utf8")}`).join("\n");
    for (const secret of [code, key.accessKey, key.user, pkceChallenge(verifier)]) assert.ok(!stored.includes(secret));
    assert.deepEqual(await codes.redeem(code, verifier, 1), key);
  });

  it("a wrong verifier uses the code up", async () => {
    const code = await codes.issue(key, pkceChallenge(verifier), 0);
    assert.equal(await codes.redeem(code, `${verifier}x`, 1), undefined);
    assert.equal(await codes.redeem(code, verifier, 2), undefined);
  });

  it("expire after a minute", async () => {
    const code = await codes.issue(key, pkceChallenge(verifier), 0);
    assert.equal(await codes.redeem(code, verifier, 61_000), undefined);
  });
});
