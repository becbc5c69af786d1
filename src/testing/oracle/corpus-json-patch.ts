/**
 * What a JSON patch's `replace` does where its target is missing, as kube-apiserver's JSON patch
 * library decides it: a key an object lacks is added; a list index past the end, or a key under a
 * parent the object lacks, is refused (422). Then where that library reads a pointer otherwise
 * than RFC 6902, which the platform follows (known-differences.ts).
 */
import { type OracleCase, object } from "./corpus.js";
import type { Step } from "./targets.js";

const createTeam = (n: string): Step => ({
  method: "POST",
  path: "teams",
  body: object("Team", n, { displayName: "T", users: ["a", "b"] }),
});
const replace = (n: string, path: string, value: unknown): Step => ({
  method: "PATCH",
  path: `teams/${n}`,
  contentType: "application/json-patch+json",
  body: [{ op: "replace", path, value }],
});

export const JSON_PATCH_CASES: OracleCase[] = [
  {
    name: "JSON patch replacing a field the object lacks",
    setup: (n) => [createTeam(n)],
    request: (n) => replace(n, "/spec/description", "added"),
  },
  {
    name: "JSON patch replacing labels the object lacks",
    setup: (n) => [createTeam(n)],
    request: (n) => replace(n, "/metadata/labels", { tier: "gold" }),
  },
  {
    name: "JSON patch replacing past the end of a list",
    setup: (n) => [createTeam(n)],
    request: (n) => replace(n, "/spec/users/2", "c"),
  },
  {
    name: "JSON patch replacing under a field the object lacks",
    setup: (n) => [createTeam(n)],
    request: (n) => replace(n, "/metadata/labels/tier", "gold"),
  },
  {
    name: "JSON patch replacing a list item counted from the end",
    setup: (n) => [createTeam(n)],
    request: (n) => replace(n, "/spec/users/-1", "z"),
  },
  {
    name: "JSON patch replacing a list item by an index with a leading zero",
    setup: (n) => [createTeam(n)],
    request: (n) => replace(n, "/spec/users/01", "z"),
  },
  {
    name: "JSON patch testing that a field the object lacks is null",
    setup: (n) => [createTeam(n)],
    request: (n) => ({
      method: "PATCH",
      path: `teams/${n}`,
      contentType: "application/json-patch+json",
      body: [{ op: "test", path: "/spec/description", value: null }],
    }),
  },
];
