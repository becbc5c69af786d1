import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { after, afterEach, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "../api/errors.js";
import { hashAccessKey } from "../crypto/access-keys.js";
import { SecretBox } from "../crypto/secret-box.js";
import { AdmissionChain } from "../registry/admission.js";
import type { KeptValueCipher } from "../registry/kept-keys.js";
import { Registry } from "../registry/registry.js";
import { entryId } from "../registry/sealed-entries.js";
import type { Storage } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { storageWith } from "../testing/storage-with.js";
import { ConsoleSessions, CSRF_HEADER, SESSION_COOKIE, SESSION_SPACE } from "./sessions.js";

const KEY = "console-session-test-key-0123456789abcdef";
const HOUR = 3600 * 1000;
const PREFIX = `/platform-internal/${SESSION_SPACE}/`;

function cipherOf(box: SecretBox): KeptValueCipher {
  return {
    encrypt: (v) => box.encrypt(Buffer.from(v, "utf8")),
    decrypt: (v) => box.decrypt(v).toString("utf8"),
  };
}

const cookieOf = (id: string): IncomingHttpHeaders => ({ cookie: `theme=dark; ${SESSION_COOKIE}=${id}` });

describe("console sessions kept in the store", () => {
  let storage: Storage;
  let cipher: KeptValueCipher;
  /** The clock of both replicas: it moves only when a test moves it (so memory never ages out by itself). */
  let clock = 1_000_000;
  const now = () => clock;
  /** Two replicas: two registries on one store, sharing the encryption keys. */
  let one: ConsoleSessions;
  let two: ConsoleSessions;

  before(async () => {
    storage = openSqliteStorage(":memory:");
    cipher = cipherOf(new SecretBox([{ name: "k1", secret: randomBytes(32) }]));
    const registry = () => new Registry(storage, [], new AdmissionChain([]));
    one = new ConsoleSessions(registry(), cipher, (err) => assert.fail(String(err)), now);
    two = new ConsoleSessions(registry(), cipher, (err) => assert.fail(String(err)), now);
    await one.watch();
    await two.watch();
  });
  afterEach(async () => {
    for (const kv of (await storage.list(PREFIX)).items) await storage.delete(kv.key);
  });
  after(async () => {
    one.stop();
    two.stop();
    await storage.close();
  });

  it("a session begun on one replica works on the other, writes only with its CSRF token", async () => {
    const { id, csrfToken } = await one.begin(KEY);
    assert.equal(await two.credentialOf("GET", cookieOf(id)), KEY);
    assert.equal(await two.csrfTokenOf(cookieOf(id)), csrfToken);
    assert.equal(await two.credentialOf("POST", { ...cookieOf(id), [CSRF_HEADER]: csrfToken }), KEY);
    await assert.rejects(
      two.credentialOf("DELETE", { ...cookieOf(id), [CSRF_HEADER]: "x".repeat(43) }),
      (err: unknown) => err instanceof ApiError && err.status.code === 403,
    );
    await assert.rejects(two.credentialOf("PATCH", cookieOf(id)), ApiError);
    assert.equal(await two.credentialOf("GET", cookieOf(`${id}x`)), undefined);
    assert.equal(await two.credentialOf("GET", {}), undefined);
  });

  it("stores the session only under the hash of the cookie, the key and CSRF token only encrypted", async () => {
    const { id, csrfToken } = await one.begin(KEY);
    const { items } = await storage.list(PREFIX);
    assert.deepEqual(
      items.map((kv) => kv.key),
      [`${PREFIX}${entryId(id)}`],
    );
    const stored = `${items[0]!.key} ${items[0]!.value.toString("utf8")}`;
    for (const secret of [id, KEY, csrfToken]) assert.ok(!stored.includes(secret), "stored in the clear");
    // Another server's encryption keys open nothing.
    const stranger = new ConsoleSessions(
      new Registry(storage, [], new AdmissionChain([])),
      cipherOf(new SecretBox([{ name: "k1", secret: randomBytes(32) }])),
      () => {},
      now,
    );
    assert.equal(await stranger.credentialOf("GET", cookieOf(id)), undefined);
  });

  it("sign-out on one replica is refused on the other once its watch reports it (it remembered the session; the clock stands still)", async () => {
    const { id, csrfToken } = await one.begin(KEY);
    assert.equal(await one.credentialOf("GET", cookieOf(id)), KEY);
    assert.equal(await one.credentialOf("GET", cookieOf(id)), KEY);
    await two.credentialOf("DELETE", { ...cookieOf(id), [CSRF_HEADER]: csrfToken });
    await two.end(cookieOf(id));
    assert.equal(await two.credentialOf("GET", cookieOf(id)), undefined);
    // The clock stands still, so only the store's report of the removal makes `one` forget.
    let answer: string | undefined = KEY;
    for (let i = 0; i < 100 && answer; i++) {
      answer = await one.credentialOf("GET", cookieOf(id));
      if (answer) await sleep(20);
    }
    assert.equal(answer, undefined);
    assert.deepEqual((await storage.list(PREFIX)).items, []);
  });

  it("ends an hour after the last use, and 12 hours after sign-in however busy", async () => {
    const idle = await one.begin(KEY);
    clock += HOUR - 1;
    assert.equal(await two.credentialOf("GET", cookieOf(idle.id)), KEY, "used just in time");
    clock += HOUR - 1;
    assert.equal(await one.credentialOf("GET", cookieOf(idle.id)), KEY, "the use above moved the idle end");
    clock += HOUR;
    assert.equal(await one.credentialOf("GET", cookieOf(idle.id)), undefined);
    assert.equal(await two.credentialOf("GET", cookieOf(idle.id)), undefined);

    const busy = await two.begin(KEY);
    for (let hour = 0; hour < 12; hour++) {
      assert.equal(await (hour % 2 ? one : two).credentialOf("GET", cookieOf(busy.id)), KEY, `hour ${hour}`);
      clock += HOUR - 60_000;
    }
    clock += 12 * 60_000;
    assert.equal(await one.credentialOf("GET", cookieOf(busy.id)), undefined);
    assert.equal(await two.csrfTokenOf(cookieOf(busy.id)), undefined);
  });

  it("the sweep removes ended sessions and keeps live ones", async () => {
    const ended = await one.begin(KEY);
    clock += 2 * HOUR;
    const live = await two.begin(KEY);
    assert.equal(await one.sweeper.sweep(clock), 1);
    const { items } = await storage.list(PREFIX);
    assert.deepEqual(
      items.map((kv) => kv.key),
      [`${PREFIX}${entryId(live.id)}`],
    );
    assert.equal(await two.credentialOf("GET", cookieOf(ended.id)), undefined);
    assert.equal(await two.credentialOf("GET", cookieOf(live.id)), KEY);
  });

  it("ending a deleted key's sessions removes every session of that key and only those, on every replica", async () => {
    const OTHER = "console-session-other-key-0123456789abcdef";
    const first = await one.begin(KEY);
    const second = await two.begin(KEY);
    const other = await one.begin(OTHER);
    // Both replicas remember the sessions: the removal must reach their memory too.
    for (const s of [first, second]) assert.equal(await one.credentialOf("GET", cookieOf(s.id)), KEY);
    assert.equal(await two.credentialOf("GET", cookieOf(first.id)), KEY);
    assert.equal(await two.endSessionsOfKeys(new Set()), 0);
    assert.equal(await two.endSessionsOfKeys(new Set([hashAccessKey("no-such-key-0123456789abcdef0123")])), 0);
    assert.equal(await two.endSessionsOfKeys(new Set([hashAccessKey(KEY)])), 2);
    assert.deepEqual(
      (await storage.list(PREFIX)).items.map((kv) => kv.key),
      [`${PREFIX}${entryId(other.id)}`],
    );
    let answer: string | undefined = KEY;
    for (let i = 0; i < 100 && answer; i++) {
      answer =
        (await one.credentialOf("GET", cookieOf(first.id))) ?? (await one.credentialOf("GET", cookieOf(second.id)));
      if (answer) await sleep(20);
    }
    assert.equal(answer, undefined, "the other replica forgot the removed sessions");
    assert.equal(await one.credentialOf("GET", cookieOf(other.id)), OTHER);
  });

  it("remembers a session found for a few seconds: repeated requests read the store once", async () => {
    let reads = 0;
    const inner = storage;
    const counted = storageWith(inner, {
      get: (key: string) => {
        reads++;
        return inner.get(key);
      },
    });
    const three = new ConsoleSessions(new Registry(counted, [], new AdmissionChain([])), cipher, () => {}, now);
    // Begun before `three` follows the store, so that no report of its creation arrives meanwhile.
    const { id } = await one.begin(KEY);
    await three.watch();
    try {
      for (let i = 0; i < 10; i++) assert.equal(await three.credentialOf("GET", cookieOf(id)), KEY);
      assert.equal(reads, 1);
      clock += 10_000;
      assert.equal(await three.credentialOf("GET", cookieOf(id)), KEY);
      assert.equal(reads, 2, "read again once the memory aged out");
    } finally {
      three.stop();
    }
  });

  it("without a watch on the store nothing is remembered: a removal is seen on the next request", async () => {
    const unwatched = new ConsoleSessions(new Registry(storage, [], new AdmissionChain([])), cipher, () => {}, now);
    const { id } = await one.begin(KEY);
    assert.equal(await unwatched.credentialOf("GET", cookieOf(id)), KEY);
    await two.end(cookieOf(id));
    assert.equal(await unwatched.credentialOf("GET", cookieOf(id)), undefined);
  });
});
