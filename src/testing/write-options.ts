import type { WriteOptions } from "../registry/options.js";

/** The options of a plain write by `fieldManager`, as tests of the Store make them. */
export function defaultWriteOptions(fieldManager = "platform"): WriteOptions {
  return { dryRun: false, fieldManager, fieldValidation: "Ignore" };
}
