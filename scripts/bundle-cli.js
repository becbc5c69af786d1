#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js and every CLI module it imports, with commander) into
// one file, dist/cli/platform-cli.js, which bin/platform.js runs: a command then starts from one
// file instead of resolving, reading and linking every module of src/cli and of commander one by
// one, which was most of a client command's own start (docs/performance.md, "The CLI").
//
// Only src/cli and the packages it imports are bundled. Every other module of dist/ (the server's,
// which `start`, `backup` or `admin` load with `await import()`, and the few helpers of src/api,
// src/support and src/sso the CLI shares) stays the compiled file it is, imported from the bundle
// by the same relative path: a process never holds two copies of a module. A CLI module that is
// imported lazily (`await import("./backup-actions.js")`) becomes a file of its own
// (platform-cli-backup-actions-HASH.js), and code it shares with the rest a shared chunk
// (platform-cli-chunk-HASH.js), all beside the bundle in dist/cli/ so every relative path holds.
import { readdirSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { build } from "esbuild";

const CLI_DIR = resolve("dist/cli");
const BUNDLE_PREFIX = "platform-cli";

/** Keeps every module outside dist/cli external, by its path relative to dist/cli. */
const onlyTheCli = {
  name: "only-the-cli",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      // The packages' own files (commander's lib/) bundle as they import each other.
      if (args.kind === "entry-point" || !args.importer.startsWith(CLI_DIR + sep)) return undefined;
      if (args.path.startsWith("node:")) return { external: true };
      // A package the CLI loads lazily (yaml, undici) stays lazy; one it imports statically is bundled.
      if (!args.path.startsWith(".")) return args.kind === "dynamic-import" ? { external: true } : undefined;
      const target = resolve(args.resolveDir, args.path);
      if (dirname(target) === CLI_DIR) return undefined;
      const path = relative(CLI_DIR, target).split(sep).join("/");
      return { path: path.startsWith(".") ? path : `./${path}`, external: true };
    });
  },
};

for (const old of readdirSync(CLI_DIR).filter((f) => f.startsWith(BUNDLE_PREFIX))) rmSync(join(CLI_DIR, old));
await build({
  entryPoints: { [BUNDLE_PREFIX]: join(CLI_DIR, "main.js") },
  outdir: CLI_DIR,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  chunkNames: `${BUNDLE_PREFIX}-[name]-[hash]`,
  // commander is CommonJS: its require() calls of node's modules need a require in an ES module.
  banner: {
    js: 'import { createRequire as createRequireForBundle } from "node:module";\nconst require = createRequireForBundle(import.meta.url);',
  },
  plugins: [onlyTheCli],
  logLevel: "warning",
});
