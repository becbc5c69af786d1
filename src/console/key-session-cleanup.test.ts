import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, afterEach, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { SecretBox } from "../crypto/secret-box.js";
import { ownedAccessKeyResource } from "../kinds/owned-access-key/owned-access-key.js";
import { AdmissionChain } from "../registry/admission.js";
import type { KeptValueCipher } from "../registry/kept-keys.js";
import { defaultWriteOptions } from "../registry/options.js";
import { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import { entryId } from "../registry/sealed-entries.js";
import { SharedInformers } from "../registry/shared-informers.js";
import type { Storage } from "../storage/interface.js";
import { openSqliteStorage } from "../storage/sqlite/sqlite-storage.js";
import { KeySessionCleanup } from "./key-session-cleanup.js";
import { ConsoleSessions, SESSION_SPACE } from "./sessions.js";

const PREFIX = `/platform-internal/${SESSION_SPACE}/`;

describe("key-session cleanup", () => {
  let storage: Storage;
  let registry: Registry;
  let informers: SharedInformers;
  let sessions: ConsoleSessions;
  let cleanup: KeySessionCleanup;
  const errors: unknown[] = [];

  before(async () => {
    storage = openSqliteStorage(":memory:");
    registry = new Registry(storage, [ownedAccessKeyResource()], new AdmissionChain([]));
    informers = new SharedInformers(registry);
    const box = new SecretBox([{ name: "k1", secret: randomBytes(32) }]);
    const cipher: KeptValueCipher = {
      encrypt: (v) => box.encrypt(Buffer.from(v, "utf8")),
      decrypt: (v) => box.decrypt(v).toString("utf8"),
    };
    sessions = new ConsoleSessions(registry, cipher);
    cleanup = new KeySessionCleanup(informers, sessions, (err) => errors.push(err));
  });
  afterEach(async () => {
    await cleanup.stop();
    assert.deepEqual(errors, []);
  });
  after(async () => {
    informers.stop();
    await storage.close();
  });

  /** Makes an access key whose value is `name` padded to a valid length; returns that value. */
  async function makeKey(name: string): Promise<string> {
    const key = `${name}-${"k".repeat(40)}`;
    const body = { apiVersion: "management.platform/v1", kind: "OwnedAccessKey", metadata: { name }, spec: { key } };
    await registry.store("ownedaccesskeys").create(systemContext(), undefined, body, defaultWriteOptions());
    return key;
  }
  const deleteKey = (name: string) =>
    registry.store("ownedaccesskeys").delete(systemContext(), undefined, name, { dryRun: false });
  /** Whether the store still holds the session begun with this id. */
  const stored = async (id: string) =>
    (await storage.list(PREFIX)).items.some((kv) => kv.key === `${PREFIX}${entryId(id)}`);

  it("on start, ends the sessions of keys deleted while it was not running, and only those", async () => {
    const gone = await makeKey("gone");
    const live = await makeKey("live");
    const goneSessions = [await sessions.begin(gone), await sessions.begin(gone)];
    const liveSession = await sessions.begin(live);
    // A session signed in with a DirectClusterEndpointToken acts with no access key: left alone.
    const tokenSession = await sessions.begin("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZG1pbiJ9.c2lnbmF0dXJl");
    await deleteKey("gone");
    // Made just before the start, maybe not yet in the informer's copy: must not look deleted.
    const fresh = await sessions.begin(await makeKey("fresh"));

    await cleanup.start();
    await cleanup.idle();
    for (const s of goneSessions) assert.equal(await stored(s.id), false, "a deleted key's session is still stored");
    for (const s of [liveSession, tokenSession, fresh]) assert.equal(await stored(s.id), true, "a session went");
  });

  it("after losing the lead and winning it again, catches up with the deletions made meanwhile", async () => {
    const key = await makeKey("between");
    const session = await sessions.begin(key);
    await cleanup.start();
    await cleanup.idle();
    assert.equal(await stored(session.id), true);
    await cleanup.stop(); // another replica leads, or none
    await deleteKey("between");
    // No event reaches a stopped cleanup: the session stays until the next start.
    await sleep(50);
    assert.equal(await stored(session.id), true);
    await cleanup.start();
    await cleanup.idle();
    assert.equal(await stored(session.id), false);
  });

  it("while running, a deletion ends that key's sessions and keeps the others", async () => {
    await cleanup.start();
    await cleanup.idle();
    const doomed = await sessions.begin(await makeKey("doomed"));
    const kept = await sessions.begin(await makeKey("kept"));
    await deleteKey("doomed");
    let left = true;
    for (let i = 0; i < 100 && left; i++) {
      await cleanup.idle();
      left = await stored(doomed.id);
      if (left) await sleep(20);
    }
    assert.equal(left, false, "the deleted key's session is still stored");
    assert.equal(await stored(kept.id), true);
  });
});
