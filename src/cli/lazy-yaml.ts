import { createRequire } from "node:module";

type Yaml = typeof import("yaml");

let yaml: Yaml | undefined;

/**
 * The yaml package, loaded on first use: it takes a noticeable part of a CLI start, and most
 * commands never print or read YAML. require() keeps the callers synchronous.
 */
function load(): Yaml {
  yaml ??= createRequire(import.meta.url)("yaml") as Yaml;
  return yaml;
}

/** YAML text to a value (the CLI reads kubeconfigs and manifests). */
export function parse(text: string): unknown {
  return load().parse(text);
}

/**
 * A value as a YAML document that YAML 1.1 readers read back the same: kubectl (go-yaml) takes an
 * unquoted `y`, `no` or `on` for a boolean, so such strings are quoted.
 */
export function stringify(value: unknown): string {
  return load().stringify(value, { version: "1.1" });
}

/** Loads the package now, e.g. before taking a lock, so the lock is held only for the work itself. */
export function preloadYaml(): void {
  load();
}
