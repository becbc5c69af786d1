/**
 * The import graph of the sources and the checks of docs/architecture.md's layer order on it:
 * which imports run upward (a folder importing one above it), which files import each other in
 * a cycle, and which folders form a knot (import each other, through any path). The
 * architecture test (src/architecture.test.ts) runs the checks on src/; run this file
 * (`node dist/testing/import-graph.js`, after a build) to print the figures the docs quote.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** Each source file (`src/a/b.ts`) with the source files it imports (relative imports only). */
export type ImportGraph = Map<string, string[]>;

/** `import … from`, `export … from`, a bare `import "…"`, and `import("…")`; type-only imports included. */
const IMPORT_STATEMENT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']|(?:^|\n)\s*import\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Reads every `.ts` file under `<root>/src` (tests too: the checks decide what to skip). */
export function importGraph(root: string): ImportGraph {
  const src = join(root, "src");
  const graph: ImportGraph = new Map();
  for (const entry of readdirSync(src, { recursive: true })) {
    const file = String(entry);
    if (!file.endsWith(".ts")) continue;
    const text = readFileSync(join(src, file), "utf8");
    const targets: string[] = [];
    for (const m of text.matchAll(IMPORT_STATEMENT)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? "";
      if (!spec.startsWith(".")) continue;
      targets.push(normalize(join("src", dirname(file), spec)).replace(/\.js$/, ".ts"));
    }
    graph.set(join("src", file), targets);
  }
  return graph;
}

export const isTest = (file: string) => file.endsWith(".test.ts");

/** The folder right under src/ a file is in (`src/a/b/c.ts` → `a`); "" for a file in src/ itself. */
export function folderOf(file: string): string {
  const parts = relative("src", file).split("/");
  return parts.length > 1 ? (parts[0] ?? "") : "";
}

/** The graph without tests: a test may use any layer to build what it tests. */
export function runtimeGraph(graph: ImportGraph): ImportGraph {
  return new Map(
    [...graph].filter(([file]) => !isTest(file)).map(([file, targets]) => [file, targets.filter((t) => !isTest(t))]),
  );
}

/**
 * The imports that break the layer order (`layers`, bottom first: each folder may import only
 * the folders before it), as `from → to`, less the named exceptions; plus the folders the order
 * does not place, and the exceptions that no longer match an import (remove them).
 */
export function layerViolations(
  graph: ImportGraph,
  layers: readonly string[],
  exceptions: Readonly<Record<string, string>> = {},
): { upward: string[]; unplaced: string[]; staleExceptions: string[] } {
  const rank = new Map(layers.map((folder, i) => [folder, i]));
  const upward: string[] = [];
  const unplaced = new Set<string>();
  const used = new Set<string>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (from === "") continue;
    if (!rank.has(from)) unplaced.add(from);
    for (const target of targets) {
      const to = folderOf(target);
      if (to === "" || to === from) continue;
      if (!rank.has(to)) unplaced.add(to);
      const [fromRank, toRank] = [rank.get(from), rank.get(to)];
      // An unplaced folder is reported as such; its imports are judged once it has a place.
      if (fromRank === undefined || toRank === undefined || fromRank >= toRank) continue;
      const arrow = `${file} → ${target}`;
      if (arrow in exceptions) used.add(arrow);
      else upward.push(arrow);
    }
  }
  const staleExceptions = Object.keys(exceptions).filter((arrow) => !used.has(arrow));
  return { upward: upward.sort(), unplaced: [...unplaced].sort(), staleExceptions };
}

/** Strongly connected components of more than one node, or one node importing itself (Tarjan). */
export function knots(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (edges.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Files that import each other, through any path (type-only imports too). */
export function fileCycles(graph: ImportGraph): string[][] {
  return knots(new Map([...graph].map(([file, targets]) => [file, targets.filter((t) => graph.has(t))])));
}

/** Folder → the other folders it imports. */
export function folderArrows(graph: ImportGraph): Map<string, string[]> {
  const arrows = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (from === "") continue;
    const into = arrows.get(from) ?? new Set<string>();
    arrows.set(from, into);
    for (const t of targets) if (folderOf(t) !== from && folderOf(t) !== "") into.add(folderOf(t));
  }
  return new Map([...arrows].map(([from, into]) => [from, [...into].sort()]));
}

/** The figures docs/architecture.md quotes, for the runtime code. */
export function figures(graph: ImportGraph, layers: readonly string[]) {
  const runtime = runtimeGraph(graph);
  const arrows = folderArrows(runtime);
  return {
    rooms: arrows.size,
    arrows: [...arrows.values()].reduce((n, into) => n + into.length, 0),
    upwardImports: layerViolations(runtime, layers).upward.length,
    fileCycles: fileCycles(runtime).length,
    largestKnot: Math.max(1, ...knots(arrows).map((k) => k.length)),
  };
}

/** The layer order of docs/architecture.md, bottom first: a folder imports only folders before it. */
export const LAYERS = [
  "support",
  "crypto",
  "api",
  "storage",
  "registry",
  "kinds",
  "auth",
  "authz",
  "events",
  "clusters",
  "admission",
  "controllers",
  "server",
  "instance-actions",
  "virtualclusters",
  "spaces",
  "metrics",
  "audit",
  "backup",
  "console",
  "sso",
  "gateway",
  "agent",
  "app",
  "cli",
  "testing",
  "e2e",
] as const;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
  console.log(JSON.stringify(figures(importGraph(root), LAYERS), null, 2));
}
