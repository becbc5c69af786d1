import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { it } from "node:test";
import { startServer } from "../app/start-server.js";
import { GROUP_PATH, startTestServer } from "../testing/test-server.js";

/** GET `path` as the admin of the server at `url` (its CA and key from the data dir). */
function adminGet(url: string, dataDir: string, path: string): Promise<{ status: number; text: string }> {
  const token = readFileSync(join(dataDir, "admin-access-key"), "utf8").trim();
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { ca: readFileSync(join(dataDir, "ca.crt")), headers: { authorization: `Bearer ${token}` } },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => {
          text += c.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

// The identity index lists every access key and every team naming members when the server
// starts: one stored value there that does not decode must not stop the server from starting.
it("a server starts over a store holding an access key and a team that do not decode, and serves", async () => {
  const first = await startTestServer();
  const dataDir = first.dataDir;
  const keys = first.registry.store("ownedaccesskeys");
  const teams = first.registry.store("teams");
  await first.storage.create(
    keys.key(undefined, "broken"),
    Buffer.from('{"metadata":{"name":"broken"},"spec":{"key":"'),
  );
  await first.storage.create(
    teams.key(undefined, "broken"),
    Buffer.from('{"metadata":{"name":"broken"},"spec":{"users":['),
  );
  await first.stop({ keepData: true });
  try {
    const again = await startServer({ host: "127.0.0.1", port: 0, logLevel: "silent", dataDir });
    try {
      const listed = await adminGet(again.url, dataDir, `${GROUP_PATH}/users`);
      assert.equal(listed.status, 200, listed.text);
      // The API itself still refuses to pass the damaged object on.
      const broken = await adminGet(again.url, dataDir, `${GROUP_PATH}/teams/broken`);
      assert.equal(broken.status, 500, broken.text);
      assert.match(
        (await adminGet(again.url, dataDir, "/metrics")).text,
        /^platform_informer_undecodable_objects_total\{resource="ownedaccesskeys"\} [1-9]/m,
      );
    } finally {
      await again.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
