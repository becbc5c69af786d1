import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { API_VERSION } from "../../api/object.js";
import { systemContext } from "../../registry/request-context.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";

const KEYS = `${GROUP_PATH}/ownedaccesskeys`;

describe("OwnedAccessKey identity.connectorData", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  async function stored(name: string) {
    const kv = await server.storage.get(server.registry.store("ownedaccesskeys").key(undefined, name));
    return JSON.parse(kv!.value.toString("utf8"));
  }

  it("a client cannot set it", async () => {
    const res = await server.request("POST", KEYS, {
      body: {
        apiVersion: API_VERSION,
        kind: "OwnedAccessKey",
        metadata: { name: "client-made" },
        spec: { user: "admin", identity: { username: "x", connectorData: "forged" } },
      },
    });
    assert.equal(res.status, 201, res.text);
    const raw = await stored("client-made");
    assert.equal(raw.spec.identity.connectorData, undefined);
    assert.equal(raw.spec.identity.username, "x");
  });

  it("the server's value is encrypted at rest, never shown, and kept through a client's update", async () => {
    await server.registry.store("ownedaccesskeys").create(
      systemContext(),
      undefined,
      {
        apiVersion: API_VERSION,
        kind: "OwnedAccessKey",
        metadata: { name: "server-made" },
        spec: {
          user: "admin",
          type: "Login",
          identity: { username: "admin", connectorData: '{"refreshToken":"rt-secret"}' },
          oidcLogin: { refreshToken: "old-token" },
        },
      },
      { dryRun: false, fieldManager: "test", fieldValidation: "Strict" },
    );
    const before = await stored("server-made");
    assert.match(before.spec.identity.connectorData, /^enc:v1:/);
    assert.doesNotMatch(JSON.stringify(before), /rt-secret/);

    const got = await server.request("GET", `${KEYS}/server-made`);
    assert.equal(got.json.spec.identity.connectorData, undefined);
    assert.equal(got.json.spec.oidcLogin, undefined);
    assert.doesNotMatch(got.text, /rt-secret|old-token|enc:v1/);
    const list = await server.request("GET", KEYS);
    assert.doesNotMatch(list.text, /rt-secret|old-token|enc:v1/);

    // A client's PUT of what it read (no connectorData) keeps the stored value; a forged one is ignored.
    const body = {
      ...got.json,
      spec: {
        ...got.json.spec,
        displayName: "renamed",
        identity: { ...got.json.spec.identity, connectorData: "forged" },
      },
    };
    const put = await server.request("PUT", `${KEYS}/server-made`, { body });
    assert.equal(put.status, 200, put.text);
    const afterPut = await stored("server-made");
    assert.equal(afterPut.spec.displayName, "renamed");
    assert.equal(afterPut.spec.identity.connectorData, before.spec.identity.connectorData);
    assert.deepEqual(afterPut.spec.oidcLogin, { refreshToken: "old-token" });
  });
});
