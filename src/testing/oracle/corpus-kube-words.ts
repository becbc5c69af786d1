/**
 * Invalid writes whose 422 Status is compared whole, messages included: how the platform names
 * each field and words each error must be kube-apiserver's (one field per cause, in `field` only;
 * `Required value`, `Invalid value: ...`, `Unsupported value: ...`, `Forbidden: ...`; the top-level
 * `<Kind>.<group> "<name>" is invalid: ...`), since kubectl and other clients print them as they come.
 * Rules the platform checks in code are declared to kube-apiserver by rules-in-code.ts.
 */
import { namespaceStep, type OracleCase, object } from "./corpus.js";
import type { Step } from "./targets.js";

const postTeam = (n: string, spec: unknown, name = n): Step => ({
  method: "POST",
  path: "teams",
  body: object("Team", name, spec),
});
const postProject = (n: string, spec: unknown): Step => ({
  method: "POST",
  path: "projects",
  body: object("Project", n, spec),
});

const cases: OracleCase[] = [
  { name: "422 in kube's words: missing required field", request: (n) => postTeam(n, { clusterRoles: [{}] }) },
  { name: "422 in kube's words: wrong type", request: (n) => postTeam(n, { displayName: 5 }) },
  // Items of one list: kube-apiserver checks a list's items in order but an object's fields in
  // any order, and the top-level message lists them as checked.
  { name: "422 in kube's words: several wrong types", request: (n) => postTeam(n, { users: [1.5, true, {}] }) },
  {
    name: "422 in kube's words: under a minimum",
    request: (n) => postProject(n, { quotas: { project: { spaceInstances: -1 } } }),
  },
  {
    name: "422 in kube's words: value not in an enum",
    request: (n) => postProject(n, { members: [{ kind: "Robot", name: "r2" }] }),
  },
  // The name's pattern (a DNS subdomain); the case's own name keeps objects of the cases apart, not this one's.
  { name: "422 in kube's words: name not matching its pattern", request: (n) => postTeam(n, {}, `${n}_Bad`) },
  // Every field error of a body at once, as kube-apiserver lists them: metadata's first, then the
  // schema's, then the rules the kind checks in code (an enum to kube-apiserver: rules-in-code.ts).
  {
    name: "422 in kube's words: a bad name and a wrong type",
    request: (n) => postTeam(n, { displayName: 5 }, `${n}_Bad`),
  },
  {
    name: "422 in kube's words: a bad label key and a value under a minimum",
    request: (n) => ({
      method: "POST",
      path: "projects",
      body: object("Project", n, { quotas: { project: { spaceInstances: -1 } } }, { labels: { "bad key!": "v" } }),
    }),
  },
  // Two items of one list, which kube-apiserver checks in order.
  {
    name: "422 in kube's words: a wrong type and a rule the kind checks in code",
    request: (n) =>
      postProject(n, {
        members: [
          { kind: "User", name: 5 },
          { kind: "Robot", name: "r2" },
        ],
      }),
  },
  {
    name: "422 in kube's words: admission refusal",
    setup: (n) => [postProject(`${n}-p`, {}), namespaceStep(`p-${n}-p`)],
    request: (n) => ({
      method: "POST",
      path: `namespaces/p-${n}-p/projectsecrets`,
      body: object("ProjectSecret", n, {
        source: { sharedSecret: { name: "shared" } },
        data: { token: Buffer.from("s3cret").toString("base64") },
      }),
    }),
  },
];

export const KUBE_WORDS_CASES: OracleCase[] = cases.map((c) => ({ ...c, compareMessages: true }));
