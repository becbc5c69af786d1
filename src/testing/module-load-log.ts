/**
 * Records which files a child node process loads: a module-loading hook appends the file URL of
 * each ES module (and CommonJS entry point) it loads to the file named by LOADED_LOG, and at exit
 * every CommonJS module that was required (Node 20's hooks do not see require()). The start-module
 * tests use it to prove a command or a server start does not load what it should not
 * (src/cli/cli-start-modules.test.ts, src/app/start-modules.test.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Writes the hooks into `dir`; returns the node arguments that register them (before the script). */
export function moduleLoadLogArgs(dir: string): string[] {
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (url.startsWith("file:")) appendFileSync(process.env.LOADED_LOG, url + "\\n");
  return next(url, context);
}\n`,
  );
  const required = join(dir, "record-required.mjs");
  writeFileSync(
    required,
    `import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";
register(${JSON.stringify(pathToFileURL(hooks).href)});
const cache = createRequire(process.execPath).cache;
process.on("exit", () => {
  const files = Object.keys(cache).map((file) => pathToFileURL(file).href + "\\n");
  appendFileSync(process.env.LOADED_LOG, files.join(""));
});\n`,
  );
  return ["--import", pathToFileURL(required).href];
}
