/**
 * Generates hostile requests over every kind and verb of the API: odd paths and names, bad
 * query parameters, malformed and hostile bodies of every content and patch type, and no,
 * bad or impersonating credentials.
 */

import {
  accept,
  continueToken,
  fieldSelector,
  hostileText,
  labelSelector,
  objectContentType,
  oddLabels,
  oddName,
  patchContentType,
  pathSegment,
  resourceVersion,
} from "./hostile-values.js";
import type { Rng } from "./prng.js";

export interface FuzzResource {
  /** Plural, e.g. `users`. */
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
}

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Whose credentials: the admin's, none, or a wrong one (sent from another source address). */
  auth: "admin" | "none" | "bad";
}

const SUBRESOURCES = [
  "status",
  "kubeconfig",
  "importvirtualcluster",
  "migratevirtualclusterinstance",
  "bogus",
  "status/x",
];
const NAMESPACES = ["p-fuzz", "p-fuzz", "p-fuzz", "p-missing", "default", "kube-system"];
const OTHER_PATHS = [
  "/",
  "/api",
  "/apis",
  "/version",
  "/openapi/v2",
  "/openapi/v3",
  "/.well-known/jwks.json",
  "/readyz?verbose",
  "/readyz/etcd",
  "/livez/ping",
  "/kubernetes/management/api",
  "/kubernetes/management/apis",
  "/kubernetes/management/apis/management.platform",
  "/kubernetes/management/apis/management.platform/v1",
  "/kubernetes/management/apis/management.platform/v2/users",
  "/kubernetes/management/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
  "/kubernetes/management/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
  "/kubernetes/management/apis/authentication.k8s.io/v1/selfsubjectreviews",
  "/kubernetes/management/openapi/v2",
  "/kubernetes/management/openapi/v3/apis/management.platform/v1",
  "/kubernetes/management//apis",
  "/kubernetes/management/apis/management.platform/v1/../../../etc/passwd",
  "/kubernetes/management/apis/management.platform/v1/namespaces",
  "/kubernetes/management/apis/management.platform/v1/namespaces/p-fuzz",
  // Served (the deprecated watch paths): with a timeout, so the stream ends and the worker goes on.
  "/kubernetes/management/apis/management.platform/v1/watch/users?timeoutSeconds=1",
  "/%zz",
  "/kubernetes/%c0%ae",
];
const GROUP_PATH = "/kubernetes/management/apis/management.platform/v1";

export function hostileRequest(rng: Rng, resources: readonly FuzzResource[]): FuzzRequest {
  return finish(buildRequest(rng, resources));
}

function buildRequest(rng: Rng, resources: readonly FuzzResource[]): FuzzRequest {
  const auth = rng.chance(0.88) ? "admin" : rng.pick(["none", "bad"] as const);
  const headers: Record<string, string> = {};
  const acceptValue = accept(rng);
  if (acceptValue) headers.accept = acceptValue;
  if (auth === "bad") headers.authorization = badCredentials(rng);
  if (auth === "admin" && rng.chance(0.04)) Object.assign(headers, impersonation(rng));
  if (rng.chance(0.05))
    return {
      method: rng.pick(["GET", "POST", "DELETE", "OPTIONS"]),
      path: rng.pick(OTHER_PATHS),
      headers,
      auth,
      ...otherBody(rng),
    };
  const { method, path, body } = resourceRequest(rng, rng.pick(resources));
  return { method, path, headers: { ...headers, ...body }, auth };
}

const VERBS = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "action", "odd"];

/** A request to one kind's collection or one of its objects (a subresource at times), by a verb picked at random. */
function resourceRequest(rng: Rng, res: FuzzResource): { method: string; path: string; body?: BodyHeaders } {
  const generated = oddName(rng);
  const name = protectedName(generated) ? "fuzz-a" : generated;
  const verb = rng.pick(VERBS);
  const collection = collectionPath(rng, res);
  const item = `${collection}/${pathSegment(rng, name)}${rng.chance(0.08) ? `/${rng.pick(SUBRESOURCES)}` : ""}`;
  switch (verb) {
    case "get":
      return { method: "GET", path: withQuery(rng, item, readQuery(rng)) };
    case "list":
      return { method: "GET", path: withQuery(rng, collection, listQuery(rng)) };
    case "watch":
      return { method: "GET", path: withQuery(rng, collection, [...listQuery(rng), "watch=true", "timeoutSeconds=1"]) };
    case "create":
      return { method: "POST", path: withQuery(rng, collection, writeQuery(rng)), body: objectBody(rng, res, name) };
    case "update":
      return { method: "PUT", path: withQuery(rng, item, writeQuery(rng)), body: objectBody(rng, res, name) };
    case "patch":
      return { method: "PATCH", path: withQuery(rng, item, writeQuery(rng)), body: patchBody(rng, res, name) };
    case "delete":
      return { method: "DELETE", path: withQuery(rng, item, deleteQuery(rng)), body: deleteBody(rng) };
    case "deletecollection":
      // Always dry-run or limited to fuzz-labelled objects: the admin must survive the run.
      return {
        method: "DELETE",
        path: withQuery(rng, collection, [
          rng.chance(0.5) ? "dryRun=All" : "labelSelector=fuzz%3Dyes",
          ...deleteQuery(rng),
        ]),
      };
    default:
      return {
        method: rng.pick(["HEAD", "OPTIONS", "TRACE", "PROPFIND", "POST", "PUT"]),
        path: rng.chance(0.5) ? item : collection,
      };
  }
}

/** Request pieces as headers plus `__body`, split off by the caller. */
type BodyHeaders = Record<string, string> & { __body?: string };

function collectionPath(rng: Rng, res: FuzzResource): string {
  if (res.namespaced || rng.chance(0.03)) {
    const ns = rng.chance(0.9) ? rng.pick(NAMESPACES) : pathSegment(rng, oddName(rng));
    return `${GROUP_PATH}/namespaces/${ns}/${res.name}`;
  }
  return `${GROUP_PATH}/${res.name}`;
}

function withQuery(rng: Rng, path: string, params: string[]): string {
  if (rng.chance(0.04))
    params.push(
      rng.pick([
        "__proto__[polluted]=q",
        "constructor[prototype][polluted]=q",
        "__proto__.polluted=q",
        "a=1&a=2&a=3",
        "%zz=1",
        "x=%zz",
      ]),
    );
  return params.length ? `${path}?${params.join("&")}` : path;
}

const q = (key: string, value: string) => `${key}=${encodeURIComponent(value)}`;

function readQuery(rng: Rng): string[] {
  const out: string[] = [];
  if (rng.chance(0.3)) out.push(q("resourceVersion", resourceVersion(rng)));
  if (rng.chance(0.1)) out.push(q("pretty", rng.pick(["true", "1", "x"])));
  return out;
}

function listQuery(rng: Rng): string[] {
  const out = readQuery(rng);
  if (rng.chance(0.4)) out.push(q("labelSelector", labelSelector(rng)));
  if (rng.chance(0.3)) out.push(q("fieldSelector", fieldSelector(rng)));
  if (rng.chance(0.3)) out.push(q("limit", rng.pick(["1", "0", "-1", "abc", "99999999999999999999", "1.5", "500"])));
  if (rng.chance(0.3)) out.push(q("continue", continueToken(rng)));
  if (rng.chance(0.2)) out.push(q("resourceVersionMatch", rng.pick(["Exact", "NotOlderThan", "bogus", ""])));
  if (rng.chance(0.1)) out.push(q("sendInitialEvents", rng.pick(["true", "false", "x"])));
  return out;
}

function writeQuery(rng: Rng): string[] {
  const out: string[] = [];
  if (rng.chance(0.3)) out.push(q("dryRun", rng.pick(["All", "all", "", "x"])));
  if (rng.chance(0.5))
    out.push(q("fieldManager", rng.pick(["fuzz", "", "m".repeat(200), "日本", "a\tb", "kubectl-client-side-apply"])));
  if (rng.chance(0.3)) out.push(q("fieldValidation", rng.pick(["Strict", "Warn", "Ignore", "strict", "bogus"])));
  if (rng.chance(0.1)) out.push(q("force", rng.pick(["true", "false", "x"])));
  return out;
}

function deleteQuery(rng: Rng): string[] {
  const out: string[] = [];
  if (rng.chance(0.3)) out.push(q("propagationPolicy", rng.pick(["Foreground", "Background", "Orphan", "bogus"])));
  if (rng.chance(0.3)) out.push(q("gracePeriodSeconds", rng.pick(["0", "-1", "x", "99999999999999999999"])));
  if (rng.chance(0.2)) out.push(q("dryRun", rng.pick(["All", "x"])));
  return out;
}

function badCredentials(rng: Rng): string {
  return rng.pick([
    "Bearer wrong-key-0123456789abcdefghijklmnopqrstuv",
    "Bearer ",
    "Bearer",
    "Basic YWRtaW46YWRtaW4=",
    "bearer lowercase",
    `Bearer ${"k".repeat(8000)}`,
    "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.",
    "Negotiate abc",
    "Bearer a b c",
  ]);
}

function impersonation(rng: Rng): Record<string, string> {
  return rng.pick<Record<string, string>>([
    { "impersonate-user": "nobody" },
    { "impersonate-user": "" },
    { "impersonate-group": "system:masters" },
    { "impersonate-user": "x", "impersonate-extra-__proto__": "y" },
    { "impersonate-uid": "1" },
  ]);
}

function otherBody(rng: Rng): { body?: string } {
  return rng.chance(0.5) ? { body: hostileText(rng, '{"kind":"SelfSubjectAccessReview"}') } : {};
}

const PROTO_SPLICE = '"__proto__":{"polluted":"body"},"constructor":{"prototype":{"polluted":"body"}},"toString":"x",';

/** A body of the kind, valid or made hostile, as JSON or YAML text. */
function objectText(rng: Rng, res: FuzzResource, name: string): string {
  const metadata: Record<string, unknown> = { name: rng.chance(0.8) ? name : oddName(rng) };
  if (rng.chance(0.3)) metadata.labels = oddLabels(rng);
  else metadata.labels = { fuzz: "yes" };
  if (rng.chance(0.1)) metadata.annotations = { big: "x".repeat(rng.pick([1000, 300_000])) };
  if (rng.chance(0.05)) metadata.generateName = rng.pick(["", "a".repeat(300), "UPPER-", "fuzz-"]);
  if (rng.chance(0.05))
    metadata.ownerReferences = rng.pick<unknown>([
      [{}],
      "x",
      [{ apiVersion: "v1", kind: "User", name: "admin", uid: "x" }],
    ]);
  if (rng.chance(0.05)) metadata.finalizers = rng.pick<unknown>([["x"], ["a/b"], [5], "x"]);
  if (rng.chance(0.05)) metadata.managedFields = rng.pick<unknown>([[{}], [{ fieldsV1: { "f:x": 5 } }], "x"]);
  if (rng.chance(0.05)) metadata.resourceVersion = resourceVersion(rng);
  const spec = rng.oneOf<unknown>([
    () => ({}),
    () => ({ displayName: "fuzz" }),
    () => ({ displayName: "x".repeat(rng.pick([1000, 200_000])) }),
    () => ({ data: { a: "aGk=", "bad key": "x", b: "not base64!" } }),
    () => ({ clusterRoles: [{ name: "platform-management-admin" }] }),
    () => ({ members: ["admin"], users: [5], owner: { user: "admin" } }),
    () => ({ config: { secretName: rng.pick(["x", "", "../x"]) }, clusterRef: { cluster: "x" } }),
    () => "spec",
    () => [],
    () => null,
  ]);
  const obj: Record<string, unknown> = {
    apiVersion: rng.chance(0.9) ? "management.platform/v1" : rng.pick(["v1", "management.platform/v2", 5, ""]),
    kind: rng.chance(0.9) ? res.kind : rng.pick(["Other", "", "Status", 5]),
    metadata: rng.chance(0.95) ? metadata : rng.pick<unknown>(["m", [], null]),
    spec,
  };
  let text = JSON.stringify(obj);
  if (rng.chance(0.15))
    text = text.replace('"spec":{', `"spec":{${PROTO_SPLICE}`).replace('"metadata":{', `"metadata":{${PROTO_SPLICE}`);
  if (rng.chance(0.05)) text = text.replace(/^\{/, `{${PROTO_SPLICE}`);
  if (rng.chance(0.02)) text = text.replace('"spec":', `"huge":"${"h".repeat(3 * 1024 * 1024)}","spec":`);
  if (rng.chance(0.15)) text = hostileText(rng, text);
  return text;
}

function objectBody(rng: Rng, res: FuzzResource, name: string): BodyHeaders {
  const out: BodyHeaders = { __body: objectText(rng, res, name) };
  const ct = objectContentType(rng);
  if (ct) out["content-type"] = ct;
  return out;
}

const PATCH_PATHS = [
  "/spec/displayName",
  "/metadata/labels/x",
  "/metadata/labels",
  "/__proto__/polluted",
  "/constructor/prototype/polluted",
  "/metadata/__proto__/polluted",
  "/metadata/labels/__proto__",
  "/spec/data/__proto__",
  "/spec/data/a",
  "",
  "/",
  "/-",
  "/spec/clusterRoles/-",
  "/spec/clusterRoles/99999999999",
  "/spec/clusterRoles/-1",
  "/metadata/name",
  "/metadata/resourceVersion",
  "/metadata/uid",
  "/status",
  "/kind",
  "~",
  "/a~2b",
  "no-slash",
  "/metadata/managedFields/0/fieldsV1",
];

function jsonPatchText(rng: Rng): string {
  const count = rng.chance(0.02) ? 10_001 : rng.int(0, 4);
  const ops: unknown[] = [];
  for (let i = 0; i < count; i++) {
    if (rng.chance(0.05)) {
      ops.push(rng.pick<unknown>(["op", 5, null, []]));
      continue;
    }
    const op: Record<string, unknown> = {
      op: rng.pick(["add", "remove", "replace", "move", "copy", "test", "bogus", "_get", ""]),
      path: rng.pick(PATCH_PATHS),
    };
    if (rng.chance(0.7))
      op.value = rng.pick<unknown>(["yes", 5, null, { polluted: "patch" }, [1], { a: { b: {} } }, "x".repeat(10_000)]);
    if (rng.chance(0.4)) op.from = rng.pick(PATCH_PATHS);
    ops.push(op);
  }
  return JSON.stringify(count === 1 && rng.chance(0.1) ? ops[0] : ops);
}

function mergePatchText(rng: Rng): string {
  return rng.pick([
    '{"spec":{"displayName":"merged"}}',
    '{"metadata":{"labels":{"fuzz":"yes","x":null}}}',
    '{"metadata":null}',
    '{"metadata":{"name":"other"}}',
    '{"metadata":{"resourceVersion":"1"}}',
    '{"__proto__":{"polluted":"merge"}}',
    '{"metadata":{"__proto__":{"polluted":"merge"},"labels":{"__proto__":"x"}}}',
    '{"constructor":{"prototype":{"polluted":"merge"}}}',
    '{"spec":{"data":{"__proto__":"aGk="}}}',
    '{"kind":"Other"}',
    '{"apiVersion":null}',
    "[]",
    "null",
    '"x"',
    `{"spec":${'{"a":'.repeat(99)}1${"}".repeat(99)}}`,
  ]);
}

function patchBody(rng: Rng, res: FuzzResource, name: string): BodyHeaders {
  const ct = patchContentType(rng);
  let text: string;
  if (ct?.startsWith("application/json-patch")) text = jsonPatchText(rng);
  else if (ct?.startsWith("application/apply-patch")) text = objectText(rng, res, name);
  else text = rng.chance(0.5) ? mergePatchText(rng) : jsonPatchText(rng);
  if (rng.chance(0.1)) text = hostileText(rng, text);
  const out: BodyHeaders = { __body: text };
  if (ct) out["content-type"] = ct;
  return out;
}

function deleteBody(rng: Rng): BodyHeaders {
  if (rng.chance(0.7)) return {};
  const body = rng.pick([
    '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Foreground"}',
    '{"preconditions":{"uid":"x","resourceVersion":"1"}}',
    '{"propagationPolicy":5}',
    '{"gracePeriodSeconds":-5}',
    '{"__proto__":{"polluted":"delete"}}',
    '{"dryRun":["All","x"]}',
    "garbage",
    "[]",
  ]);
  return { __body: body, "content-type": rng.pick(["application/json", "application/yaml", "text/plain"]) };
}

/** Moves the body generators' `__body` into the request. */
function finish(request: FuzzRequest): FuzzRequest {
  const { __body, ...headers } = request.headers as BodyHeaders;
  return __body === undefined ? request : { ...request, headers, body: __body };
}

/** True for names the generators must never write to or delete (the admin). */
function protectedName(name: string): boolean {
  return name === "admin" || name.startsWith("admin-");
}
