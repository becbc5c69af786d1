/**
 * Read-your-writes for access decisions on etcd: a write that takes a right away, once answered
 * by a replica, is in force from that replica's very next request. On etcd a write is answered
 * when etcd acknowledges it, and the replica's own watch (its informers, which the identity and
 * role caches follow) delivers it a moment later: without the wait of access-write-barrier.ts
 * the next request was served from the old state whenever it came first.
 *
 * Every other round, the replica's watch of etcd breaks just before the revoking write (as a
 * network failure would; it resumes by itself some 50 ms later), so that its watch surely
 * delivers the write after etcd acknowledged it; on an idle machine that happens only now and
 * then by itself (a busy replica or etcd). Each next request leaves on a connection kept open,
 * the moment the write is answered.
 */
import assert from "node:assert/strict";
import { Agent, request } from "node:https";
import { after, describe, it } from "node:test";
import { ADMIN_USER } from "../auth/bootstrap.js";
import type { EtcdStorage } from "../storage/etcd/etcd-storage.js";
import type { Storage } from "../storage/interface.js";
import { suiteServer } from "../testing/suite-server.js";
import { GROUP_PATH } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

const ROUNDS = 30;
const VIEW = [{ name: "platform-management-view" }];

/** The etcd storage under a replica's watch cache and metrics (app/storage-assembly.ts). */
function etcdOf(storage: Storage): EtcdStorage {
  let s: Storage & { inner?: Storage; hub?: unknown } = storage;
  while (s.hub === undefined && s.inner !== undefined) s = s.inner;
  assert.ok(s.hub, "the server stores in etcd");
  return s as EtcdStorage;
}

describe("a revocation is in force from the next request on the replica that wrote it (etcd)", {
  timeout: 180_000,
}, () => {
  const suite = suiteServer("etcd", { maxFailedAuthPerMinute: 100_000 });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  after(() => agent.destroy());

  /** A request on the kept connection; `token` defaults to the admin key. */
  const send = (method: string, path: string, token?: string, body?: unknown) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string> = { authorization: `Bearer ${token ?? suite.server.adminKey}` };
      if (payload !== undefined) {
        headers["content-type"] = method === "PATCH" ? "application/merge-patch+json" : "application/json";
        headers["content-length"] = String(Buffer.byteLength(payload));
      }
      const url = new URL(`${GROUP_PATH}/${path}`, suite.server.url);
      const req = request(url, { method, headers, agent, ca: suite.server.caPem }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });
  const write = async (method: "POST" | "PATCH" | "DELETE", path: string, body?: unknown) => {
    const res = await send(method, path, undefined, body);
    assert.equal(res.status, method === "POST" ? 201 : 200, res.text);
    return JSON.parse(res.text);
  };
  const newUser = (name: string) => write("POST", "users", { metadata: { name }, spec: {} });
  const newKey = async (name: string, user: string) =>
    (await write("POST", "ownedaccesskeys", { metadata: { name }, spec: { user } })).spec.key as string;

  /** Who the key is (a Self is created, nothing is read or stored): 201, or 401. */
  const whoAmI = async (key: string) => (await send("POST", "selves", key, { metadata: {} })).status;
  /** A GET of the admin user: 200 with the view role, else 403. */
  const readAdmin = async (key: string) => (await send("GET", `users/${ADMIN_USER}`, key)).status;
  /** A grant is not what is tested here: waits until `ask` answers `status`, then asks once more (cached). */
  const until = async (ask: () => Promise<number>, status: number) => {
    await waitFor(`the answer ${status}`, ask, (answered) => answered === status);
    await ask();
  };
  /**
   * Waits until the first use of key `name` has been recorded (key-activity.ts writes it in the
   * background): a write in flight would make the revoking write's own read wait for the watch.
   */
  const activityRecorded = (name: string) =>
    waitFor(
      `the use of ${name} recorded`,
      async () => (await send("GET", `ownedaccesskeys/${name}`)).text,
      (key) => key.includes("lastActivity"),
    );
  /**
   * Runs the rounds: each revokes through `revoke` (after breaking the replica's watch on even
   * rounds) and returns the status of the request right after it.
   */
  const rounds = async (refused: number, round: (i: number, revoke: () => void) => Promise<number>) => {
    const served: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const revoke = () => {
        if (i % 2 === 0) etcdOf(suite.server.storage).hub.breakStream();
      };
      if ((await round(i, revoke)) !== refused) served.push(i);
    }
    assert.deepEqual(served, [], `${served.length} of ${ROUNDS} revocations were not in force on the next request`);
  };

  it("a disabled access key is refused", async () => {
    await newUser("kd");
    const key = await newKey("kd-key", "kd");
    await rounds(401, async (_, revoke) => {
      await until(() => whoAmI(key), 201);
      revoke();
      await write("PATCH", "ownedaccesskeys/kd-key", { spec: { disabled: true } });
      const status = await whoAmI(key);
      await write("PATCH", "ownedaccesskeys/kd-key", { spec: { disabled: false } });
      return status;
    });
  });

  it("a deleted access key is refused", async () => {
    await newUser("kx");
    await rounds(401, async (i, revoke) => {
      const key = await newKey(`kx-${i}`, "kx");
      await until(() => whoAmI(key), 201);
      await activityRecorded(`kx-${i}`);
      revoke();
      await write("DELETE", `ownedaccesskeys/kx-${i}`);
      return whoAmI(key);
    });
  });

  it("every key of a deleted user is refused", async () => {
    await rounds(401, async (i, revoke) => {
      await newUser(`du-${i}`);
      const key = await newKey(`du-${i}-key`, `du-${i}`);
      await until(() => whoAmI(key), 201);
      await activityRecorded(`du-${i}-key`);
      revoke();
      await write("DELETE", `users/du-${i}`);
      return whoAmI(key);
    });
  });

  it("a user removed from a team loses the team's role", async () => {
    await newUser("tm");
    await write("POST", "teams", { metadata: { name: "tm-viewers" }, spec: { clusterRoles: VIEW } });
    const key = await newKey("tm-key", "tm");
    await rounds(403, async (_, revoke) => {
      await write("PATCH", "teams/tm-viewers", { spec: { users: ["tm"] } });
      await until(() => readAdmin(key), 200);
      revoke();
      await write("PATCH", "teams/tm-viewers", { spec: { users: [] } });
      return readAdmin(key);
    });
  });

  it("a role taken from a user, or from its team, is gone", async () => {
    await newUser("rg");
    await write("POST", "teams", { metadata: { name: "rg-team" }, spec: { users: ["rg"] } });
    const key = await newKey("rg-key", "rg");
    await rounds(403, async (i, revoke) => {
      const granted = i % 4 < 2 ? "users/rg" : "teams/rg-team";
      await write("PATCH", granted, { spec: { clusterRoles: VIEW } });
      await until(() => readAdmin(key), 200);
      revoke();
      await write("PATCH", granted, { spec: { clusterRoles: [] } });
      return readAdmin(key);
    });
  });
});
