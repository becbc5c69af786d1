/**
 * What a write requires of the stored object besides a current resourceVersion, compared with
 * kube-apiserver's answers whole, messages included (each server's own uid and resourceVersion in
 * them compared as placeholders): the uid a PUT's body carries, which kube-apiserver makes a
 * precondition of the update, and a DELETE's `preconditions`.
 */
import { type OracleCase, object } from "./corpus.js";
import type { Answer, Step } from "./targets.js";

/** The uid of no object on either side. */
const OTHER_UID = "00000000-0000-0000-0000-000000000000";

const uidOf = (a: Answer | undefined): string => a?.json?.metadata?.uid ?? "";
const rvOf = (a: Answer | undefined): string => a?.json?.metadata?.resourceVersion ?? "";
const createTeam = (n: string): Step => ({
  method: "POST",
  path: "teams",
  body: object("Team", n, { displayName: "T" }),
});
/** A change after the create, whose resourceVersion is then stale. */
const labelTeam = (n: string): Step => ({
  method: "PATCH",
  path: `teams/${n}`,
  contentType: "application/merge-patch+json",
  body: { metadata: { labels: { v: "2" } } },
});
const putTeam = (
  n: string,
  spec: unknown,
  metadata: Record<string, unknown>,
  query?: Record<string, string>,
): Step => ({
  method: "PUT",
  path: `teams/${n}`,
  query,
  body: object("Team", n, spec, metadata),
});
const deleteTeam = (n: string, preconditions: unknown): Step => ({
  method: "DELETE",
  path: `teams/${n}`,
  body: { kind: "DeleteOptions", apiVersion: "v1", preconditions },
});
/** The created object's uid, as the first setup step answered it. */
const createdUid = (s: Answer[]) => ({ "<uid>": uidOf(s[0]) });

const updates: OracleCase[] = [
  {
    name: "update with another object's uid",
    setup: (n) => [createTeam(n)],
    request: (n, s) => putTeam(n, { displayName: "T2" }, { resourceVersion: rvOf(s[0]), uid: OTHER_UID }),
    ownValues: createdUid,
  },
  // kube-apiserver checks the uid on the stored object before the resourceVersion and the schema.
  {
    name: "update with another object's uid and no resourceVersion",
    setup: (n) => [createTeam(n)],
    request: (n) => putTeam(n, { displayName: "T2" }, { uid: OTHER_UID }),
    ownValues: createdUid,
  },
  {
    name: "update with another object's uid and a stale resourceVersion",
    setup: (n) => [createTeam(n), labelTeam(n)],
    request: (n, s) => putTeam(n, { displayName: "T2" }, { resourceVersion: rvOf(s[0]), uid: OTHER_UID }),
    ownValues: createdUid,
  },
  {
    name: "update with another object's uid and a wrong type",
    setup: (n) => [createTeam(n)],
    request: (n, s) => putTeam(n, { displayName: 5 }, { resourceVersion: rvOf(s[0]), uid: OTHER_UID }),
    ownValues: createdUid,
  },
  {
    name: "dry-run update with another object's uid",
    setup: (n) => [createTeam(n)],
    request: (n, s) =>
      putTeam(n, { displayName: "T2" }, { resourceVersion: rvOf(s[0]), uid: OTHER_UID }, { dryRun: "All" }),
    ownValues: createdUid,
  },
  {
    name: "status update with another object's uid",
    setup: (n) => [{ method: "POST", path: "projects", body: object("Project", n, {}) }],
    request: (n, s) => ({
      method: "PUT",
      path: `projects/${n}/status`,
      body: { ...object("Project", n, {}, { resourceVersion: rvOf(s[0]), uid: OTHER_UID }), status: {} },
    }),
    ownValues: createdUid,
  },
  {
    name: "update of a namespaced object with another object's uid",
    setup: (n) => [
      {
        method: "POST",
        path: "namespaces/oracle/sharedsecrets",
        body: object("SharedSecret", n, { displayName: "S" }),
      },
    ],
    request: (n, s) => ({
      method: "PUT",
      path: `namespaces/oracle/sharedsecrets/${n}`,
      body: object("SharedSecret", n, { displayName: "S2" }, { resourceVersion: rvOf(s[0]), uid: OTHER_UID }),
    }),
    ownValues: createdUid,
  },
];

const deletes: OracleCase[] = [
  {
    name: "delete with a stale resourceVersion precondition",
    setup: (n) => [createTeam(n), labelTeam(n)],
    request: (n, s) => deleteTeam(n, { resourceVersion: rvOf(s[0]) }),
    ownValues: (s) => ({ "<stale>": rvOf(s[0]), "<current>": rvOf(s[1]) }),
  },
  {
    name: "delete with a wrong uid precondition",
    setup: (n) => [createTeam(n)],
    request: (n) => deleteTeam(n, { uid: OTHER_UID }),
    ownValues: createdUid,
  },
  {
    name: "delete with a wrong uid and a stale resourceVersion precondition",
    setup: (n) => [createTeam(n), labelTeam(n)],
    request: (n, s) => deleteTeam(n, { uid: OTHER_UID, resourceVersion: rvOf(s[0]) }),
    ownValues: createdUid,
  },
  // An empty precondition is one all the same: it matches no object.
  {
    name: "delete with an empty uid precondition",
    setup: (n) => [createTeam(n)],
    request: (n) => deleteTeam(n, { uid: "" }),
    ownValues: createdUid,
  },
  {
    name: "delete with an empty resourceVersion precondition",
    setup: (n) => [createTeam(n)],
    request: (n) => deleteTeam(n, { resourceVersion: "" }),
    ownValues: (s) => ({ "<current>": rvOf(s[0]) }),
  },
  {
    name: "delete with a uid precondition that is not a string",
    setup: (n) => [createTeam(n)],
    request: (n) => deleteTeam(n, { uid: 5 }),
  },
  {
    name: "delete with preconditions that are not an object",
    setup: (n) => [createTeam(n)],
    request: (n) => deleteTeam(n, "x"),
  },
];

export const PRECONDITION_CASES: OracleCase[] = [...updates, ...deletes].map((c) => ({ ...c, compareMessages: true }));
