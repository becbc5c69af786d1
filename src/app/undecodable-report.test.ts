import assert from "node:assert/strict";
import { test } from "node:test";
import { informerUndecodableObjects } from "../metrics/metrics.js";
import { reportUndecodable } from "./undecodable-report.js";

const countOf = async (resource: string) =>
  (await informerUndecodableObjects.get()).values.find((v) => v.labels.resource === resource)?.value ?? 0;

test("an undecodable object an informer skipped: one structured error line and one more on the counter", async () => {
  const lines: Array<{ obj: unknown; msg: string }> = [];
  const report = reportUndecodable({ error: (obj: unknown, msg: string) => lines.push({ obj, msg }) } as never);
  const before = await countOf("teams");
  report({
    resource: "teams",
    key: "/registry/management.platform/teams/devs",
    revision: 42,
    reason: "the stored value is not valid JSON",
  });
  assert.deepEqual(lines, [
    {
      obj: {
        resource: "teams",
        key: "/registry/management.platform/teams/devs",
        revision: 42,
        reason: "the stored value is not valid JSON",
      },
      msg: "informer skipped /registry/management.platform/teams/devs at revision 42: the stored value is not valid JSON",
    },
  ]);
  assert.equal(await countOf("teams"), before + 1);
  assert.equal(await countOf("users"), 0, "counted for its own resource only");
});
