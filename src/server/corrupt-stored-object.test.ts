import assert from "node:assert/strict";
import { request } from "node:https";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * A value in the store that is not an object this server wrote (written there by hand, or
 * damaged): the paths that send stored bytes without parsing them (GET, LIST, a watch that
 * selects nothing) must not pass it on as it is. As kube-apiserver does, a read answers an
 * InternalError Status (a LIST kube's StorageReadError) and a watch ends with an ERROR event; the
 * decoding paths answer the same.
 */
describe("a corrupt stored object never reaches a client as it is", () => {
  let server: TestServer;
  // Cut short: it starts as an object and holds a top-level metadata, but it is not JSON.
  const truncated =
    '{"apiVersion":"management.platform/v1","kind":"Team","metadata":{"name":"NAME"},"spec":{"users":["a"';

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  /** Writes `value` under the key of Team `name`, below the registry. */
  const writeRaw = (name: string, value: string) =>
    server.storage.create(server.registry.store("teams").key(undefined, name), Buffer.from(value));
  const removeRaw = (name: string) => server.storage.delete(server.registry.store("teams").key(undefined, name));

  const assertInternalError = (res: { status: number; json: { kind?: string; reason?: string } }, text: string) => {
    assert.equal(res.status, 500, text);
    assert.equal(res.json?.kind, "Status", text);
    assert.equal(res.json?.reason, "InternalError", text);
  };

  it("GET answers 500 InternalError, on the fast path and on the normal one", async () => {
    await writeRaw("bad-get", truncated.replace("NAME", "bad-get"));
    // Twice: the first request authenticates the key, the next may be answered from memory.
    for (let i = 0; i < 3; i++) {
      const res = await server.request("GET", `${GROUP_PATH}/teams/bad-get`);
      assertInternalError(res, res.text);
    }
    const yaml = await server.request("GET", `${GROUP_PATH}/teams/bad-get`, {
      headers: { accept: "application/yaml" },
    });
    assert.equal(yaml.status, 500, yaml.text);
    await removeRaw("bad-get");
  });

  it("a value that is JSON but not an object is refused as well", async () => {
    await writeRaw("bad-array", '["metadata",{"metadata":{"name":"bad-array"}}]');
    const res = await server.request("GET", `${GROUP_PATH}/teams/bad-array`);
    assertInternalError(res, res.text);
    await removeRaw("bad-array");
  });

  it("LIST answers 500 StorageReadError rather than a list holding the bytes", async () => {
    await writeRaw("bad-list", truncated.replace("NAME", "bad-list"));
    const res = await server.request("GET", `${GROUP_PATH}/teams`);
    assert.equal(res.status, 500, res.text);
    assert.equal(res.json?.reason, "StorageReadError", res.text);
    assert.ok(!res.text.includes('"users":["a"'), "nothing of the corrupt bytes was sent");
    await removeRaw("bad-list");
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams`)).status, 200, "listed again once it is gone");
  });

  for (const [how, query] of [
    ["a watch that selects nothing (stored bytes)", ""],
    ["a watch with a label selector (decoding)", "&labelSelector=tier%21%3Dnone"],
  ] as const) {
    it(`${how} ends with an ERROR event`, async () => {
      const name = `bad-watch-${query ? "selected" : "plain"}`;
      const list = await server.request("GET", `${GROUP_PATH}/teams`);
      assert.equal(list.status, 200, list.text);
      const rv = list.json.metadata.resourceVersion as string;
      const lines = watchLines(server, `${GROUP_PATH}/teams?watch=true&resourceVersion=${rv}${query}`);
      await server.request("POST", `${GROUP_PATH}/teams`, { body: { metadata: { name: `${name}-ok` }, spec: {} } });
      await writeRaw(name, truncated.replace("NAME", name));
      const got = await lines;
      assert.equal(got.length, 2, got.join("\n"));
      const events = got.map((l) => JSON.parse(l));
      assert.equal(events[0].type, "ADDED");
      assert.equal(events[0].object.metadata.name, `${name}-ok`);
      assert.equal(events[1].type, "ERROR");
      assert.equal(events[1].object.kind, "Status");
      assert.equal(events[1].object.code, 500);
      assert.equal(events[1].object.reason, "InternalError");
      assert.ok(!got.join("\n").includes('"users":["a"'), "nothing of the corrupt bytes was sent");
      await removeRaw(name);
    });
  }
});

/** The lines of a watch until the server ends it (raw: a line that is not JSON is kept as is). */
function watchLines(server: TestServer, path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, server.url),
      { headers: { authorization: `Bearer ${server.adminKey}` }, ca: server.caPem },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve(text.split("\n").filter((l) => l.trim() !== "")));
        res.on("error", reject);
      },
    );
    // Bounded: a watch the server never ends would hold the test (the server's own timeout ends it).
    req.setTimeout(20_000, () => req.destroy(new Error("the watch was not ended by the server")));
    req.on("error", reject);
    req.end();
  });
}
