import type { KubeObject } from "../api/object.js";

/** A management object of `kind` with only a name and a spec, as the identity tests write them. */
export const object = (kind: string, name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: "management.platform/v1",
  kind,
  metadata: { name },
  spec,
});

/** A key value given by its creator (at least 32 characters), one per name. */
export const token = (name: string) => `${name}-${"x".repeat(40)}`;
