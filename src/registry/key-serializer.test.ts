import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GROUP_PATH, startTestServer } from "../testing/test-server.js";
import { KeySerializer } from "./key-serializer.js";

describe("KeySerializer", () => {
  it("runs operations on one key one after another, other keys alongside", async () => {
    const serializer = new KeySerializer();
    const log: string[] = [];
    const op = (name: string, ms: number) => async () => {
      log.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      log.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([
      serializer.run("a", op("a1", 20)),
      serializer.run("a", op("a2", 1)),
      serializer.run("b", op("b1", 5)),
    ]);
    assert.deepEqual(results, ["a1", "a2", "b1"]);
    assert.ok(log.indexOf("end a1") < log.indexOf("start a2"), log.join(", "));
    assert.ok(log.indexOf("start b1") < log.indexOf("end a1"), log.join(", "));
  });

  it("a failed operation rejects alone; the next one on the key still runs", async () => {
    const serializer = new KeySerializer();
    const failed = serializer.run("k", async () => {
      throw new Error("boom");
    });
    const next = serializer.run("k", async () => "ok");
    await assert.rejects(failed, /boom/);
    assert.equal(await next, "ok");
  });
});

describe("concurrent patches of one object", () => {
  it("all succeed, none lost (no conflict retries to run out of)", async () => {
    const s = await startTestServer();
    try {
      const teams = `${GROUP_PATH}/teams`;
      const created = await s.request("POST", teams, {
        body: { apiVersion: "management.platform/v1", kind: "Team", metadata: { name: "hot" }, spec: {} },
      });
      assert.equal(created.status, 201, created.text);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          s.request("PATCH", `${teams}/hot`, {
            body: { metadata: { labels: { [`l${i}`]: "x" } } },
            contentType: "application/merge-patch+json",
          }),
        ),
      );
      assert.deepEqual(
        results.map((r) => r.status),
        results.map(() => 200),
      );
      const labels = (await s.request("GET", `${teams}/hot`)).json.metadata.labels;
      assert.equal(Object.keys(labels).length, 40);
    } finally {
      await s.stop();
    }
  });
});
