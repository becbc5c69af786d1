import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

// One way to resync and back off (docs/architecture.md, "Controllers"), checked on the sources.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function runtimeSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return runtimeSources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("controllers' resync", () => {
  it("only resync-queue.ts arms a resync pass over a work queue: every resyncing controller uses ResyncQueue", () => {
    const byHand = runtimeSources(join(root, "src"))
      .filter((file) => {
        const text = readFileSync(file, "utf8");
        return text.includes("new WorkQueue") && text.includes("setInterval(");
      })
      .map((file) => relative(root, file));
    assert.deepEqual(byHand, ["src/controllers/resync-queue.ts"]);
  });
});
