import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import {
  fileCycles,
  folderArrows,
  folderOf,
  type ImportGraph,
  importGraph,
  isTest,
  knots,
  LAYERS,
  layerViolations,
  runtimeGraph,
} from "./testing/import-graph.js";

// The import rules of docs/architecture.md, checked on the sources so that they stay true.

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const graph = importGraph(root);
const runtime = runtimeGraph(graph);

/**
 * Imports that may run up the layer order, each with why. Empty: none is needed. An entry is
 * `src/a/x.ts → src/b/y.ts`; one that no longer matches an import fails the test (remove it).
 */
const UPWARD_EXCEPTIONS: Record<string, string> = {};

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

describe("architecture: layers", () => {
  it("every import of runtime code goes down the layer order (src/testing/import-graph.ts LAYERS)", () => {
    const { upward, unplaced, staleExceptions } = layerViolations(runtime, LAYERS, UPWARD_EXCEPTIONS);
    assert.deepEqual(
      unplaced,
      [],
      `folders the layer order does not place (add them to LAYERS and the docs):\n${unplaced.join("\n")}`,
    );
    assert.deepEqual(upward, [], `these import a layer above their own:\n${upward.join("\n")}`);
    assert.deepEqual(
      staleExceptions,
      [],
      `these exceptions match no import any more: remove them\n${staleExceptions.join("\n")}`,
    );
  });

  it("no files of runtime code import each other in a cycle (type-only imports included)", () => {
    const cycles = fileCycles(runtime).map((c) => c.join(" ↔ "));
    assert.deepEqual(cycles, [], `these files import each other:\n${cycles.join("\n")}`);
  });

  it("no folders import each other through any path (no knot of folders)", () => {
    const found = knots(folderArrows(runtime)).map((k) => k.join(" ↔ "));
    assert.deepEqual(found, [], `these folders import each other:\n${found.join("\n")}`);
  });

  it("the checks find an upward import, a file cycle, a folder knot, an unplaced folder and a stale exception", () => {
    // A synthetic graph: low imports nothing above it, but high ↔ low through low/b.ts.
    const synthetic: ImportGraph = new Map([
      ["src/low/a.ts", ["src/low/b.ts"]],
      ["src/low/b.ts", ["src/low/a.ts", "src/high/c.ts"]],
      ["src/high/c.ts", ["src/low/a.ts"]],
      ["src/stray/d.ts", ["src/low/a.ts"]],
      ["src/high/c.test.ts", ["src/stray/d.ts"]],
    ]);
    const layers = ["low", "high"];
    const checked = layerViolations(runtimeGraph(synthetic), layers, { "src/high/c.ts → src/low/x.ts": "gone" });
    assert.deepEqual(checked.upward, ["src/low/b.ts → src/high/c.ts"]);
    assert.deepEqual(checked.unplaced, ["stray"]);
    assert.deepEqual(checked.staleExceptions, ["src/high/c.ts → src/low/x.ts"]);
    assert.deepEqual(fileCycles(synthetic), [["src/high/c.ts", "src/low/a.ts", "src/low/b.ts"]]);
    assert.deepEqual(knots(folderArrows(runtimeGraph(synthetic))), [["high", "low"]]);
    // A named exception lets its one import through, and only it.
    const excepted = layerViolations(runtimeGraph(synthetic), [...layers, "stray"], {
      "src/low/b.ts → src/high/c.ts": "the reason",
    });
    assert.deepEqual(excepted, { upward: [], unplaced: [], staleExceptions: [] });
    // Tests are left out of runtime code: the test's import of a folder above it is no violation.
    assert.equal(runtimeGraph(synthetic).has("src/high/c.test.ts"), false);
  });
});

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

  it("outside src/storage/etcd/client, code and tests import the etcd client only through its index.ts", () => {
    const client = "src/storage/etcd/client/";
    const found: string[] = [];
    for (const [file, targets] of graph) {
      if (file.startsWith(client)) continue;
      for (const t of targets) if (t.startsWith(client) && t !== `${client}index.ts`) found.push(`${file} → ${t}`);
    }
    assert.ok(graph.get("src/storage/etcd/etcd-storage.ts")?.includes(`${client}index.ts`), "the rule sees the client");
    assert.deepEqual(found.sort(), [], `these reach into the etcd client:\n${found.join("\n")}`);
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
