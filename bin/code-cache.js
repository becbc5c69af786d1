// Runs the CLI bundle with V8's code cache. Compiling the bundle, and then each function a command
// calls, is a good part of a client command's own start; V8 can keep that compiled code
// (vm.Script's cachedData), so every run after the first loads it instead of compiling again
// (docs/performance.md, "The CLI"). The cache is the user's: a file in their cache directory,
// written after the first run of each build of the bundle under each Node.js version; a cache
// that cannot be read or written only costs the next run the compile.
const { createHash } = require("node:crypto");
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require("node:fs");
const { homedir } = require("node:os");
const { dirname, isAbsolute, join } = require("node:path");
const vm = require("node:vm");

/** Where the compiled code is kept: $XDG_CACHE_HOME/platform/cli-code, else ~/.cache/platform/cli-code. */
function cacheDir() {
  const base = process.env.XDG_CACHE_HOME;
  return join(base && isAbsolute(base) ? base : join(homedir(), ".cache"), "platform", "cli-code");
}

/**
 * Loads `bundle` (a CommonJS file; `built` its fs.Stats) as require() would, compiled with the code
 * an earlier run cached, and runs its main(argv). The first run of a build (or one whose cache V8
 * refused: another V8 or other flags) writes the cache once the command is done, holding the code
 * of every function it compiled: `platform --help` or `--version` builds every command.
 */
async function runWithCodeCache(bundle, built, argv) {
  const dir = cacheDir();
  // One installation's caches apart from another's (several checkouts share a home); the build and
  // the Node.js version in the name, since V8 checks only the source's length and its own version.
  const installation = createHash("sha256").update(bundle).digest("hex").slice(0, 16);
  const file = join(dir, `${installation}-${process.version}-${built.size}-${Math.trunc(built.mtimeMs)}.bin`);
  const cachedData = readIfPresent(file);
  // The wrapper require() puts around a CommonJS module, on the source's first line so that line
  // numbers hold.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, "utf8")}\n})`;
  const script = new vm.Script(source, { filename: bundle, cachedData });
  const module = { exports: {} };
  script.runInThisContext()(
    module.exports,
    require("node:module").createRequire(bundle),
    module,
    bundle,
    dirname(bundle),
  );
  try {
    await module.exports.main(argv);
  } finally {
    if (cachedData === undefined || script.cachedDataRejected) save(dir, installation, file, script.createCachedData());
  }
}

function readIfPresent(file) {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Writes the cache atomically (runs in parallel read whole files only), replacing this installation's older ones. */
function save(dir, installation, file, data) {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const old of readdirSync(dir)) if (old.startsWith(`${installation}-`)) rmSync(join(dir, old), { force: true });
    const written = `${file}.${process.pid}.tmp`;
    writeFileSync(written, data, { mode: 0o600 });
    renameSync(written, file);
  } catch {
    // No cache (a read-only home): the next run compiles, as this one did.
  }
}

module.exports = { runWithCodeCache };
