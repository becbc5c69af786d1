import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

// The import rules of docs/architecture.md, checked on the sources so that they stay true.

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

/** Every module the sources import from each other: `src/a/b.ts` → `src/c/d.ts`. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const statement = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
  for (const entry of readdirSync(src, { recursive: true })) {
    const file = String(entry);
    if (!file.endsWith(".ts")) continue;
    const text = readFileSync(join(src, file), "utf8");
    const targets: string[] = [];
    for (const m of text.matchAll(statement)) {
      const spec = m[1] ?? m[2] ?? "";
      if (!spec.startsWith(".")) continue;
      const target = normalize(join("src", dirname(file), spec)).replace(/\.js$/, ".ts");
      targets.push(target);
    }
    graph.set(join("src", file), targets);
  }
  return graph;
}

const graph = importGraph();
const isTest = (file: string) => file.endsWith(".test.ts");
const folderOf = (file: string) => relative("src", file).split("/")[0] ?? "";

/** The imports of runtime code from `from` (folder) into `into` (folder). */
function importsBetween(from: (file: string) => boolean, into: string): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    if (isTest(file) || !from(file)) continue;
    for (const t of targets) if (folderOf(t) === into) found.push(`${file} → ${t}`);
  }
  return found.sort();
}

/** Folders whose code may use src/storage directly (besides src/storage itself and the tests). */
const STORAGE_FOLDERS = new Set(["storage", "registry", "app", "testing"]);

/** Single files outside them that may, and why. */
const STORAGE_EXCEPTIONS: Record<string, string> = {
  "src/backup/backup-stream.ts": "a backup copies the storage key space as it is",
  "src/backup/backup-route.ts": "serves that copy of the backend",
  "src/backup/restore.ts": "a restore writes the key space back as it was",
  "src/cli/backup-actions.ts": "restores into a data directory offline, opening the backend by its URL",
  "src/controllers/controller-manager.ts": "runs the controllers on the replica the backend's leader elector elects",
  "src/cli/migrate-storage-command.ts": "copies one backend into another offline",
  "src/metrics/instrumented-storage.ts": "the metrics decorator of the backend (a Storage itself)",
  "src/metrics/server-hooks.ts": "puts that decorator around the backend the composition root hands it",
  "src/metrics/metrics.ts": "times the SQLite WAL's fsyncs (durable-wal.ts's hook)",
  "src/metrics/server-gauges.ts": "reports the watch cache's own gauges",
};

describe("architecture: import rules", () => {
  it("the scanner sees the imports the rules are about (a rule over nothing would pass vacuously)", () => {
    assert.ok(graph.size > 100, `only ${graph.size} source files found under ${src}`);
    assert.ok(graph.get("src/registry/store.ts")?.includes("src/storage/interface.ts"));
    assert.ok(importsBetween((f) => folderOf(f) === "app", "controllers").length > 0);
  });

  it("outside src/storage and src/registry (and the composition root, test support) nothing imports src/storage", () => {
    const found = importsBetween(
      (file) => !STORAGE_FOLDERS.has(folderOf(file)) && !(file in STORAGE_EXCEPTIONS),
      "storage",
    );
    assert.deepEqual(found, [], `these go around the registry to storage:\n${found.join("\n")}`);
  });

  it("every exception to the storage rule still imports src/storage (a stale exception is removed)", () => {
    for (const file of Object.keys(STORAGE_EXCEPTIONS)) {
      assert.ok(graph.has(file), `${file} is gone: drop its exception`);
      assert.ok(
        importsBetween((f) => f === file, "storage").length > 0,
        `${file} no longer imports src/storage: drop its exception`,
      );
    }
  });

  it("src/console and src/sso import nothing from each other (what they share is in src/registry)", () => {
    const found = [
      ...importsBetween((file) => folderOf(file) === "console", "sso"),
      ...importsBetween((file) => folderOf(file) === "sso", "console"),
    ];
    assert.deepEqual(found, [], `the console and SSO depend on each other:\n${found.join("\n")}`);
  });

  it("src/server does not import src/controllers", () => {
    const found = importsBetween((file) => folderOf(file) === "server", "controllers");
    assert.deepEqual(found, [], `the HTTP layer reaches into the controllers:\n${found.join("\n")}`);
  });
});
