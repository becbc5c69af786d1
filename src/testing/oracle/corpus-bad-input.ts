/**
 * Bad input and the request options clients lean on, sent to kube-apiserver and the platform
 * alike (on Teams, whose schema has strings, lists and maps, unless the case is about another kind).
 */
import { type OracleCase, object } from "./corpus.js";
import type { Answer, Step } from "./targets.js";

const team = (n: string, spec: unknown = { displayName: "T" }, metadata: Record<string, unknown> = {}) =>
  object("Team", n, spec, metadata);
const createTeam = (n: string, metadata: Record<string, unknown> = {}): Step => ({
  method: "POST",
  path: "teams",
  body: team(n, { displayName: "T" }, metadata),
});
const rvOf = (a: Answer | undefined): string => a?.json?.metadata?.resourceVersion ?? "";
const post = (body: unknown, query?: Record<string, string>): Step => ({ method: "POST", path: "teams", body, query });
const put = (n: string, body: unknown, query?: Record<string, string>): Step => ({
  method: "PUT",
  path: `teams/${n}`,
  body,
  query,
});

/** A server-side apply of team `n` setting its displayName, with `query` (the field manager). */
const applyTeam = (n: string, displayName: string, query?: Record<string, string>): Step => ({
  method: "PATCH",
  path: `teams/${n}`,
  query,
  contentType: "application/apply-patch+yaml",
  body: team(n, { displayName }),
});

/** A change between a create and a request carrying the create's resourceVersion, which is then stale. */
const mergeLabel = { contentType: "application/merge-patch+json", body: { metadata: { labels: { v: "2" } } } };

const nulls: OracleCase[] = [
  { name: "null in an optional string", request: (n) => post(team(n, { displayName: null })) },
  { name: "null in an optional list", request: (n) => post(team(n, { users: null })) },
  { name: "null spec", request: (n) => post(team(n, null)) },
  { name: "null labels", request: (n) => post(team(n, {}, { labels: null })) },
];

const wrongTypes: OracleCase[] = [
  { name: "number for a string", request: (n) => post(team(n, { displayName: 5 })) },
  { name: "string for a list", request: (n) => post(team(n, { users: "a" })) },
  { name: "number in a list of strings", request: (n) => post(team(n, { users: ["a", 1] })) },
  { name: "list for an object", request: (n) => post(team(n, [])) },
  { name: "number for a label value", request: (n) => post(team(n, {}, { labels: { a: 1 } })) },
  { name: "body is not JSON", request: () => ({ method: "POST", path: "teams", raw: "{not json" }) },
  { name: "body is a JSON list", request: () => ({ method: "POST", path: "teams", raw: "[]" }) },
  { name: "wrong kind in the body", request: (n) => post({ ...team(n), kind: "User" }) },
  { name: "wrong apiVersion in the body", request: (n) => post({ ...team(n), apiVersion: "other.io/v1" }) },
];

const names: OracleCase[] = [
  { name: "name with upper case and underscore", request: () => post(team("Bad_Name")) },
  { name: "name of 254 characters", request: () => post(team("a".repeat(254))) },
  { name: "no name and no generateName", request: () => post({ ...team(""), metadata: {} }) },
  { name: "generateName", request: (n) => post({ ...team(""), metadata: { generateName: `${n}-` } }) },
  { name: "bad generateName", request: () => post({ ...team(""), metadata: { generateName: "Bad_" } }) },
  {
    name: "name in the body differs from the path",
    setup: (n) => [createTeam(n)],
    request: (n, s) => put(n, team(`${n}-other`, {}, { resourceVersion: rvOf(s[0]) })),
  },
  { name: "create of an existing name", setup: (n) => [createTeam(n)], request: (n) => post(team(n)) },
  { name: "get of a missing object", request: (n) => ({ method: "GET", path: `teams/${n}` }) },
  { name: "delete of a missing object", request: (n) => ({ method: "DELETE", path: `teams/${n}` }) },
  { name: "update of a missing object", request: (n) => put(n, team(n)) },
  {
    name: "project name of 62 characters",
    request: () => ({ method: "POST", path: "projects", body: object("Project", "p".repeat(62), {}) }),
  },
];

const versions: OracleCase[] = [
  {
    name: "update with a stale resourceVersion",
    setup: (n) => [createTeam(n), { method: "PATCH", path: `teams/${n}`, ...mergeLabel }],
    request: (n, s) => put(n, team(n, { displayName: "T2" }, { resourceVersion: rvOf(s[0]) })),
  },
  {
    name: "update without a resourceVersion",
    setup: (n) => [createTeam(n)],
    request: (n) => put(n, team(n, { displayName: "T2" })),
  },
  {
    name: "update with a resourceVersion that is not a number",
    setup: (n) => [createTeam(n)],
    request: (n) => put(n, team(n, { displayName: "T2" }, { resourceVersion: "abc" })),
  },
  {
    name: "merge patch with a stale resourceVersion",
    setup: (n) => [createTeam(n), { method: "PATCH", path: `teams/${n}`, ...mergeLabel }],
    request: (n, s) => ({
      method: "PATCH",
      path: `teams/${n}`,
      contentType: "application/merge-patch+json",
      body: { metadata: { resourceVersion: rvOf(s[0]) }, spec: { displayName: "T2" } },
    }),
  },
  {
    name: "list with a resourceVersion that is not a number",
    request: () => ({ method: "GET", path: "teams", query: { resourceVersion: "abc" } }),
  },
  {
    name: "creationTimestamp written another way on update",
    setup: (n) => [createTeam(n)],
    request: (n, s) =>
      put(
        n,
        team(n, { displayName: "T2" }, { resourceVersion: rvOf(s[0]), creationTimestamp: "2001-02-03T04:05:06+00:00" }),
      ),
  },
  {
    name: "creationTimestamp null on update",
    setup: (n) => [createTeam(n)],
    request: (n, s) => put(n, team(n, { displayName: "T2" }, { resourceVersion: rvOf(s[0]), creationTimestamp: null })),
  },
];

const fieldValidation: OracleCase[] = ["Strict", "Warn", "Ignore"].flatMap((mode) => [
  {
    name: `unknown field in spec, fieldValidation=${mode}`,
    request: (n: string) => post(team(n, { displayName: "T", bogus: 1 }), { fieldValidation: mode }),
  },
  {
    name: `unknown field in metadata, fieldValidation=${mode}`,
    request: (n: string) => post(team(n, {}, { bogus: 1 }), { fieldValidation: mode }),
  },
  {
    name: `duplicate field, fieldValidation=${mode}`,
    request: (n: string) => ({
      method: "POST",
      path: "teams",
      query: { fieldValidation: mode },
      raw: `{"apiVersion":"management.platform/v1","kind":"Team","metadata":{"name":"${n}"},"spec":{"displayName":"a","displayName":"b"}}`,
    }),
  },
  {
    name: `unknown field in a JSON patch, fieldValidation=${mode}`,
    setup: (n: string) => [createTeam(n)],
    request: (n: string) => ({
      method: "PATCH",
      path: `teams/${n}`,
      query: { fieldValidation: mode },
      contentType: "application/json-patch+json",
      body: [{ op: "add", path: "/spec/bogus", value: 1 }],
    }),
  },
  {
    name: `unknown field in an apply, fieldValidation=${mode}`,
    request: (n: string) => ({
      method: "PATCH",
      path: `teams/${n}`,
      query: { fieldValidation: mode, fieldManager: "oracle" },
      contentType: "application/apply-patch+yaml",
      body: team(n, { displayName: "T", bogus: 1 }),
    }),
  },
  {
    name: `unknown field in a merge patch, fieldValidation=${mode}`,
    setup: (n: string) => [createTeam(n)],
    request: (n: string) => ({
      method: "PATCH",
      path: `teams/${n}`,
      query: { fieldValidation: mode },
      contentType: "application/merge-patch+json",
      body: { spec: { bogus: 1 } },
    }),
  },
]);

const selectors: OracleCase[] = [
  {
    name: "list by label selector",
    setup: (n) => [createTeam(n, { labels: { case: n } }), createTeam(`${n}-b`)],
    request: (n) => ({ method: "GET", path: "teams", query: { labelSelector: `case=${n}` } }),
  },
  {
    name: "list by set-based label selector",
    setup: (n) => [createTeam(n, { labels: { case: n } })],
    request: (n) => ({ method: "GET", path: "teams", query: { labelSelector: `case in (${n}),!missing` } }),
  },
  {
    name: "malformed label selector",
    request: () => ({ method: "GET", path: "teams", query: { labelSelector: "a in (" } }),
  },
  {
    name: "field selector on metadata.name",
    setup: (n) => [createTeam(n)],
    request: (n) => ({ method: "GET", path: "teams", query: { fieldSelector: `metadata.name=${n}` } }),
  },
  {
    name: "field selector on a field not served",
    request: () => ({ method: "GET", path: "teams", query: { fieldSelector: "spec.displayName=T" } }),
  },
  {
    name: "malformed field selector",
    request: () => ({ method: "GET", path: "teams", query: { fieldSelector: "metadata.name" } }),
  },
];

const paging: OracleCase[] = [
  {
    name: "list with limit",
    setup: (n) => [createTeam(n, { labels: { page: n } }), createTeam(`${n}-b`, { labels: { page: n } })],
    request: (n) => ({ method: "GET", path: "teams", query: { labelSelector: `page=${n}`, limit: "1" } }),
  },
  {
    name: "list with the continue token of a limited list",
    setup: (n) => [
      createTeam(n, { labels: { page: n } }),
      createTeam(`${n}-b`, { labels: { page: n } }),
      { method: "GET", path: "teams", query: { labelSelector: `page=${n}`, limit: "1" } },
    ],
    request: (n, s) => ({
      method: "GET",
      path: "teams",
      query: { labelSelector: `page=${n}`, limit: "1", continue: s[2]?.json?.metadata?.continue ?? "" },
    }),
  },
  {
    name: "list with a continue token that is not one",
    request: () => ({ method: "GET", path: "teams", query: { limit: "1", continue: "bogus" } }),
  },
  {
    name: "list with a negative limit",
    request: () => ({ method: "GET", path: "teams", query: { limit: "-1" } }),
  },
];

const dryRun: OracleCase[] = [
  { name: "create with dryRun=All", request: (n) => post(team(n), { dryRun: "All" }) },
  {
    name: "get after a dryRun create",
    setup: (n) => [post(team(n), { dryRun: "All" })],
    request: (n) => ({ method: "GET", path: `teams/${n}` }),
  },
  { name: "dryRun with an unknown value", request: (n) => post(team(n), { dryRun: "Bogus" }) },
  {
    name: "delete with dryRun=All",
    setup: (n) => [createTeam(n)],
    request: (n) => ({ method: "DELETE", path: `teams/${n}`, query: { dryRun: "All" } }),
  },
];

const patches: OracleCase[] = [
  {
    name: "strategic merge patch",
    setup: (n) => [createTeam(n)],
    request: (n) => ({
      method: "PATCH",
      path: `teams/${n}`,
      contentType: "application/strategic-merge-patch+json",
      body: { spec: { displayName: "x" } },
    }),
  },
  {
    name: "JSON patch whose test fails",
    setup: (n) => [createTeam(n)],
    request: (n) => ({
      method: "PATCH",
      path: `teams/${n}`,
      contentType: "application/json-patch+json",
      body: [{ op: "test", path: "/spec/displayName", value: "nope" }],
    }),
  },
  {
    name: "JSON patch removing a missing field",
    setup: (n) => [createTeam(n)],
    request: (n) => ({
      method: "PATCH",
      path: `teams/${n}`,
      contentType: "application/json-patch+json",
      body: [{ op: "remove", path: "/spec/description" }],
    }),
  },
  {
    name: "merge patch that is not JSON",
    setup: (n) => [createTeam(n)],
    request: (n) => ({ method: "PATCH", path: `teams/${n}`, contentType: "application/merge-patch+json", raw: "{" }),
  },
  {
    name: "merge patch of a missing object",
    request: (n) => ({
      method: "PATCH",
      path: `teams/${n}`,
      contentType: "application/merge-patch+json",
      body: { spec: {} },
    }),
  },
  { name: "apply without a fieldManager", request: (n) => applyTeam(n, "T") },
  {
    name: "apply taking a field another manager owns",
    setup: (n) => [applyTeam(n, "first", { fieldManager: "first" })],
    request: (n) => applyTeam(n, "second", { fieldManager: "second" }),
  },
  {
    name: "apply with force taking a field another manager owns",
    setup: (n) => [applyTeam(n, "first", { fieldManager: "first" })],
    request: (n) => applyTeam(n, "second", { fieldManager: "second", force: "true" }),
  },
];

const statusSubresource: OracleCase[] = [
  {
    name: "status update of a project",
    setup: (n) => [{ method: "POST", path: "projects", body: object("Project", n, {}) }],
    request: (n, s) => ({
      method: "PUT",
      path: `projects/${n}/status`,
      body: {
        ...object("Project", n, { displayName: "ignored" }, { resourceVersion: rvOf(s[0]) }),
        status: { conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" }] },
      },
    }),
  },
  {
    name: "status of a kind without a status subresource",
    setup: (n) => [createTeam(n)],
    request: (n) => ({ method: "GET", path: `teams/${n}/status` }),
  },
  {
    name: "status written through the main resource",
    setup: (n) => [{ method: "POST", path: "projects", body: object("Project", n, {}) }],
    request: (n) => ({
      method: "PATCH",
      path: `projects/${n}`,
      contentType: "application/merge-patch+json",
      body: { status: { conditions: [{ type: "Ready", status: "True" }] } },
    }),
  },
];

const watchesAndDeletes: OracleCase[] = [
  {
    name: "watch from a resourceVersion that is not a number",
    request: () => ({ method: "GET", path: "teams", query: { watch: "true", resourceVersion: "abc" } }),
  },
  {
    name: "list with resourceVersionMatch but no resourceVersion",
    request: () => ({ method: "GET", path: "teams", query: { resourceVersionMatch: "Exact" } }),
  },
  {
    name: "list with an unsupported resourceVersionMatch",
    request: () => ({
      method: "GET",
      path: "teams",
      query: { resourceVersion: "1", resourceVersionMatch: "Sometimes" },
    }),
  },
  {
    name: "list with resourceVersionMatch=Exact at resourceVersion 0",
    request: () => ({ method: "GET", path: "teams", query: { resourceVersion: "0", resourceVersionMatch: "Exact" } }),
  },
  {
    name: "get at resourceVersion 0",
    setup: (n) => [createTeam(n)],
    request: (n) => ({ method: "GET", path: `teams/${n}`, query: { resourceVersion: "0" } }),
  },
  {
    name: "a cluster-wide kind under a namespace",
    request: () => ({ method: "GET", path: "namespaces/default/teams" }),
  },
  {
    name: "delete with an unknown propagationPolicy",
    setup: (n) => [createTeam(n)],
    request: (n) => ({ method: "DELETE", path: `teams/${n}`, query: { propagationPolicy: "Bogus" } }),
  },
  {
    name: "delete of a collection by label",
    setup: (n) => [createTeam(n, { labels: { sweep: n } }), createTeam(`${n}-b`, { labels: { sweep: n } })],
    request: (n) => ({ method: "DELETE", path: "teams", query: { labelSelector: `sweep=${n}` } }),
  },
  {
    name: "merge patch of a project's status",
    setup: (n) => [{ method: "POST", path: "projects", body: object("Project", n, {}) }],
    request: (n) => ({
      method: "PATCH",
      path: `projects/${n}/status`,
      contentType: "application/merge-patch+json",
      body: { status: { conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" }] } },
    }),
  },
];

export const BAD_INPUT_CASES: OracleCase[] = [
  ...nulls,
  ...wrongTypes,
  ...names,
  ...versions,
  ...fieldValidation,
  ...selectors,
  ...paging,
  ...dryRun,
  ...patches,
  ...statusSubresource,
  ...watchesAndDeletes,
];
