/**
 * Records which files a child node process loads: a module-loading hook appends each file URL it
 * loads to the file named by LOADED_LOG. The start-module tests use it to prove a command or a
 * server start does not load what it should not (src/cli/cli-start-modules.test.ts,
 * src/app/start-modules.test.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Writes the hook into `dir`; returns the node arguments that register it (before the script). */
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
  const register = `import{register}from"node:module";register(${JSON.stringify(pathToFileURL(hooks).href)})`;
  return ["--import", `data:text/javascript,${register}`];
}
