#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/main.js and every CLI module it imports, with commander) into
// one CommonJS file, dist/cli/platform-cli.cjs, which bin/platform.js runs with V8's code cache
// (bin/code-cache.js): a command then starts from one file, compiled once, instead of resolving,
// reading, linking and compiling every module of src/cli and of commander one by one, and without
// Node's ES module loader, which a client command would otherwise set up for its own files only
// (docs/performance.md, "The CLI").
//
// What is bundled and what is not:
// - every module of src/cli, the lazily imported ones too (`await import("./backup-actions.js")`
//   becomes a call into the same file: one copy of each CLI module, so `instanceof CliError` holds);
// - the packages the CLI imports statically (commander); yaml and undici load lazily through
//   createRequire, as before;
// - a module outside src/cli that the CLI imports statically (a constant of src/api, a helper of
//   src/support) only when it imports nothing at run time itself: the build fails otherwise, so no
//   server module can slip into every command's start (import it with `await import()` instead);
// - a module outside src/cli imported with `await import()` (the server's, for start, agent,
//   backup, restore, admin) stays the compiled ES module it is, loaded by the same relative path
//   (the bundle sits in dist/cli/ beside the modules it replaces) when the command runs. It is
//   loaded with require(), which loads an ES module on the Node.js versions package.json allows:
//   code compiled from a cache (vm.Script) cannot import() without an experimental flag.
import { readdirSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { build } from "esbuild";

const CLI_DIR = resolve("dist/cli");
const BUNDLE = join(CLI_DIR, "platform-cli.cjs");
const inNodeModules = (file) => file.split(sep).includes("node_modules");

const onlyTheCli = {
  name: "only-the-cli",
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === "entry-point") return undefined;
      if (args.path.startsWith("node:")) return { external: true };
      // The packages' own files (commander's lib/) bundle as they import each other.
      if (inNodeModules(args.importer)) return undefined;
      const fromTheCli = dirname(args.importer) === CLI_DIR;
      if (!args.path.startsWith(".")) {
        if (!fromTheCli) return leafError(args);
        // A package the CLI loads lazily stays lazy; one it imports statically is bundled.
        return args.kind === "dynamic-import" ? { external: true } : undefined;
      }
      if (!fromTheCli) return leafError(args);
      const target = resolve(args.resolveDir, args.path);
      if (dirname(target) === CLI_DIR || args.kind !== "dynamic-import") return undefined;
      return { path: relative(CLI_DIR, target).split(sep).join("/"), external: true };
    });
  },
};

/** A module outside src/cli that the CLI imports statically imports something itself. */
function leafError(args) {
  const importer = relative(resolve("dist"), args.importer);
  return {
    errors: [
      {
        text: `${importer} imports ${args.path}: the CLI bundles only modules outside src/cli that import nothing themselves; import ${importer} with await import() where it is needed`,
      },
    ],
  };
}

// The bundle of an earlier build, whatever its form (the ES module bundle and its chunks were platform-cli*.js).
for (const old of readdirSync(CLI_DIR).filter((f) => f.startsWith("platform-cli"))) rmSync(join(CLI_DIR, old));
await build({
  entryPoints: [join(CLI_DIR, "main.js")],
  outfile: BUNDLE,
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  supported: { "dynamic-import": false },
  // createRequire(import.meta.url) (lazy-yaml.ts, http-transport.ts) from the bundle's own place.
  define: { "import.meta.url": "bundleUrl" },
  banner: { js: 'const bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [onlyTheCli],
  logLevel: "warning",
});
