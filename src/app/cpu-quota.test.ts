import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { containerCpuLimit, cpusOfQuota } from "./cpu-quota.js";

describe("a container's CPU limit (--workers auto)", () => {
  const roots = mkdtempSync(join(tmpdir(), "platform-cgroup-"));
  after(() => rmSync(roots, { recursive: true, force: true }));
  let n = 0;
  /** A cgroup mount with these files (path → content). */
  const cgroup = (files: Record<string, string>) => {
    const root = join(roots, String(++n));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, ".."), { recursive: true });
      writeFileSync(join(root, path), `${text}\n`);
    }
    return root;
  };

  it("counts whole CPUs of a quota, at least one", () => {
    assert.equal(cpusOfQuota("200000", "100000"), 2);
    assert.equal(cpusOfQuota("250000", "100000"), 2);
    assert.equal(cpusOfQuota("50000", "100000"), 1);
    assert.equal(cpusOfQuota("max", "100000"), undefined);
    assert.equal(cpusOfQuota("-1", "100000"), undefined);
    assert.equal(cpusOfQuota("junk", "100000"), undefined);
  });

  it("reads cgroup v2's cpu.max, else v1's quota and period", () => {
    assert.equal(containerCpuLimit(cgroup({ "cpu.max": "300000 100000" })), 3);
    assert.equal(containerCpuLimit(cgroup({ "cpu.max": "max 100000" })), undefined);
    const v1 = cgroup({ "cpu/cpu.cfs_quota_us": "150000", "cpu/cpu.cfs_period_us": "50000" });
    assert.equal(containerCpuLimit(v1), 3);
    assert.equal(
      containerCpuLimit(cgroup({ "cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000" })),
      undefined,
    );
    assert.equal(containerCpuLimit(join(roots, "none")), undefined);
  });
});
