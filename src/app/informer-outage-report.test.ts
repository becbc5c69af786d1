import assert from "node:assert/strict";
import { test } from "node:test";
import { reportInformerOutage } from "./informer-outage-report.js";

test("an informer's relist outage: one error line when it begins, one warning when it ends", () => {
  const lines: Array<{ level: string; obj: unknown; msg: string }> = [];
  const log = {
    error: (obj: unknown, msg: string) => lines.push({ level: "error", obj, msg }),
    warn: (obj: unknown, msg: string) => lines.push({ level: "warn", obj, msg }),
  };
  const report = reportInformerOutage(log as never);
  report({ resource: "teams", phase: "failing", failedAttempts: 1, revision: 42, error: "StorageError: etcd down" });
  report({ resource: "teams", phase: "recovered", failedAttempts: 7, revision: 42 });
  assert.deepEqual(lines, [
    {
      level: "error",
      obj: { resource: "teams", revision: 42, failedAttempts: 1, error: "StorageError: etcd down" },
      msg: "the teams informer cannot list the store after its watch ended: retrying with backoff; its copy stays at revision 42",
    },
    {
      level: "warn",
      obj: { resource: "teams", revision: 42, failedAttempts: 7 },
      msg: "the teams informer listed the store again after 7 failed attempts and watches it anew",
    },
  ]);
});
