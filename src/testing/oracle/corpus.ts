/**
 * The requests the oracle sends to kube-apiserver and to the platform alike: every verb of every
 * stored kind, then bad input. Each case gets a name of its own (`n`) for the objects it makes,
 * so no case sees another's.
 */
import type { Answer, Step } from "./targets.js";

export interface OracleCase {
  name: string;
  /** Requests that set the stage on each side; each must succeed (2xx). */
  setup?: (n: string) => Step[];
  /** The request compared; built from the setup's answers on the same side (their resourceVersions). */
  request: (n: string, setup: Answer[]) => Step;
  /** The platform's controllers write this kind's status (normalise.ts leaves it out). */
  statusByController?: boolean;
  /** The answer's messages are compared too (normalise.ts), not only what programs act on. */
  compareMessages?: boolean;
  /**
   * With compareMessages: values each server makes its own (an object's uid, its resourceVersion),
   * read from the setup's answers on the same side, and the placeholder each is compared as, so
   * that a message quoting them is compared in the rest of its words.
   */
  ownValues?: (setup: Answer[]) => Record<string, string>;
}

/** The namespace the namespaced kinds' cases use (kube needs it created; the platform has no namespaces). */
export const NAMESPACE = "oracle";

interface KindCase {
  kind: string;
  plural: string;
  /** The collection path of the case's objects. */
  collection: (n: string) => string;
  spec: (n: string) => Record<string, unknown>;
  statusByController?: boolean;
  /** Objects the kind's object needs first (its user, its project and namespace). */
  needs?: (n: string) => Step[];
}

const API_VERSION = "management.platform/v1";

const KINDS: KindCase[] = [
  { kind: "Team", plural: "teams", collection: () => "teams", spec: () => ({ displayName: "T", users: ["a"] }) },
  { kind: "User", plural: "users", collection: () => "users", spec: () => ({ displayName: "U", email: "u@x.io" }) },
  {
    kind: "Cluster",
    plural: "clusters",
    collection: () => "clusters",
    spec: () => ({ displayName: "C", local: true }),
    // The cluster health controller reports on every Cluster as soon as it sees it.
    statusByController: true,
  },
  { kind: "Project", plural: "projects", collection: () => "projects", spec: () => ({ displayName: "P" }) },
  {
    kind: "SharedSecret",
    plural: "sharedsecrets",
    collection: () => `namespaces/${NAMESPACE}/sharedsecrets`,
    spec: () => ({ displayName: "S", data: { token: Buffer.from("s3cret").toString("base64") } }),
  },
  {
    kind: "OwnedAccessKey",
    plural: "ownedaccesskeys",
    collection: () => "ownedaccesskeys",
    spec: (n) => ({ displayName: "K", user: `${n}-owner` }),
    needs: (n) => [{ method: "POST", path: "users", body: object("User", `${n}-owner`, {}) }],
  },
  {
    kind: "VirtualClusterInstance",
    plural: "virtualclusterinstances",
    collection: (n) => `namespaces/p-${n}-p/virtualclusterinstances`,
    spec: () => ({ displayName: "V" }),
    needs: (n) => [
      { method: "POST", path: "projects", body: object("Project", `${n}-p`, { allowedClusters: [{ name: "*" }] }) },
      namespaceStep(`p-${n}-p`),
    ],
  },
];

export function object(kind: string, name: string, spec: unknown, metadata: Record<string, unknown> = {}) {
  return { apiVersion: API_VERSION, kind, metadata: { name, ...metadata }, spec };
}

/** A namespace, which only kube needs. */
export function namespaceStep(name: string): Step {
  return { method: "POST", path: `/api/v1/namespaces`, body: { metadata: { name } }, only: "kube" };
}

function rv(answer: Answer | undefined): string {
  return answer?.json?.metadata?.resourceVersion ?? "";
}

function verbCases(k: KindCase): OracleCase[] {
  const create = (n: string): Step[] => [
    ...(k.needs?.(n) ?? []),
    { method: "POST", path: k.collection(n), body: object(k.kind, n, k.spec(n)) },
  ];
  const item = (n: string) => `${k.collection(n)}/${n}`;
  const created = (setup: Answer[]) => setup[setup.length - 1];
  const cases: OracleCase[] = [
    {
      name: `${k.plural}: create`,
      setup: (n) => k.needs?.(n) ?? [],
      request: (n) => ({ method: "POST", path: k.collection(n), body: object(k.kind, n, k.spec(n)) }),
    },
    { name: `${k.plural}: get`, setup: create, request: (n) => ({ method: "GET", path: item(n) }) },
    {
      name: `${k.plural}: list`,
      setup: create,
      request: (n) => ({ method: "GET", path: k.collection(n), query: { fieldSelector: `metadata.name=${n}` } }),
    },
    {
      name: `${k.plural}: update`,
      setup: create,
      request: (n, setup) => ({
        method: "PUT",
        path: item(n),
        body: object(k.kind, n, { ...k.spec(n), description: "updated" }, { resourceVersion: rv(created(setup)) }),
      }),
    },
    {
      name: `${k.plural}: merge patch`,
      setup: create,
      request: (n) => ({
        method: "PATCH",
        path: item(n),
        contentType: "application/merge-patch+json",
        body: { metadata: { labels: { tier: "gold" } }, spec: { description: "patched" } },
      }),
    },
    {
      name: `${k.plural}: JSON patch`,
      setup: create,
      request: (n) => ({
        method: "PATCH",
        path: item(n),
        contentType: "application/json-patch+json",
        body: [{ op: "add", path: "/spec/description", value: "patched" }],
      }),
    },
    {
      name: `${k.plural}: server-side apply`,
      setup: (n) => k.needs?.(n) ?? [],
      request: (n) => ({
        method: "PATCH",
        path: item(n),
        query: { fieldManager: "oracle" },
        contentType: "application/apply-patch+yaml",
        body: object(k.kind, n, k.spec(n)),
      }),
    },
    { name: `${k.plural}: delete`, setup: create, request: (n) => ({ method: "DELETE", path: item(n) }) },
    {
      name: `${k.plural}: watch`,
      setup: (n) => [...create(n), { method: "DELETE", path: item(n) }],
      request: (n, setup) => ({
        method: "GET",
        path: k.collection(n),
        query: {
          watch: "true",
          fieldSelector: `metadata.name=${n}`,
          resourceVersion: rv(created(setup.slice(0, -1))),
          timeoutSeconds: "1",
        },
      }),
    },
  ];
  return cases.map((c) => ({ ...c, statusByController: k.statusByController }));
}

export const VERB_CASES: OracleCase[] = KINDS.flatMap(verbCases);
