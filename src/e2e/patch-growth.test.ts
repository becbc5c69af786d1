import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer, userWithKey } from "../testing/test-server.js";

const G = GROUP_PATH;
const JSON_PATCH = "application/json-patch+json";

/**
 * A patch's growth is bounded before it is applied: a JSON patch's copies add at most the request
 * body limit (422 past it), and no patch makes an object larger than a body may be (413).
 */
describe("patches that grow an object", () => {
  let s: TestServer;
  let userKey: string;
  before(async () => {
    s = await startTestServer();
    userKey = await userWithKey(s, "mallory");
  });
  after(() => s?.stop());

  it("refuses a caller's JSON patch of copies into itself on their own key, dry run or not, with a 422 Status", async () => {
    // 64 bytes doubled 17 times is 8 MiB: the copies pass the 3 MiB limit before the last.
    const ops = [
      { op: "add", path: "/metadata/annotations", value: { seed: "v".repeat(64) } },
      ...Array.from({ length: 17 }, (_, i) => ({
        op: "copy",
        from: "/metadata/annotations",
        path: `/metadata/annotations/a${i}`,
      })),
    ];
    for (const query of ["?dryRun=All", ""]) {
      const r = await s.request("PATCH", `${G}/ownedaccesskeys/mallory-key${query}`, {
        token: userKey,
        contentType: JSON_PATCH,
        raw: JSON.stringify(ops),
      });
      assert.equal(r.status, 422, r.text.slice(0, 300));
      assert.equal(r.json.kind, "Status");
      assert.equal(r.json.code, 422);
      assert.match(
        r.json.details.causes[0].message,
        /^operation 1\d \(copy .*\): the copies of this patch would add more than 3145728 bytes/,
      );
    }
    const key = await s.request("GET", `${G}/ownedaccesskeys/mallory-key`, { token: userKey });
    assert.equal(key.status, 200);
    assert.equal(key.json.metadata.annotations, undefined, "nothing was written");
  });

  it("refuses a merge patch that makes an object larger than a request body, with a 413 Status", async () => {
    // Secret data is a map of any size: two halves of 2 MiB are fine alone, not together.
    const half = Buffer.from("x".repeat(1536 * 1024)).toString("base64");
    const path = `${G}/namespaces/platform/sharedsecrets/big`;
    const secret = { metadata: { name: "big" }, spec: { data: { first: half } } };
    const created = await s.request("POST", `${G}/namespaces/platform/sharedsecrets`, { body: secret });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    const r = await s.request("PATCH", path, {
      contentType: "application/merge-patch+json",
      body: { spec: { data: { second: half } } },
    });
    assert.equal(r.status, 413, r.text.slice(0, 300));
    assert.equal(r.json.reason, "RequestEntityTooLarge");
    assert.match(r.json.message, /the patched object is \d+ bytes of JSON, more than the 3145728 a request may carry/);
    const kept = await s.request("GET", path);
    assert.deepEqual(Object.keys(kept.json.spec.data), ["first"]);
  });
  it("refuses a server-side apply that makes an object larger than a request body, with a 413 Status", async () => {
    // The live object keeps the fields other managers own: a config of 2 MiB beside 2 MiB is too much.
    const half = Buffer.from("y".repeat(1536 * 1024)).toString("base64");
    const created = await s.request("POST", `${G}/namespaces/platform/sharedsecrets`, {
      body: { metadata: { name: "applied" }, spec: { data: { first: half } } },
    });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    const config = {
      apiVersion: "management.platform/v1",
      kind: "SharedSecret",
      metadata: { name: "applied", namespace: "platform" },
      spec: { data: { second: half } },
    };
    const r = await s.request("PATCH", `${G}/namespaces/platform/sharedsecrets/applied?fieldManager=growth`, {
      contentType: "application/apply-patch+yaml",
      raw: JSON.stringify(config),
    });
    assert.equal(r.status, 413, r.text.slice(0, 300));
    assert.match(r.json.message, /the patched object is \d+ bytes of JSON/);
  });
});
