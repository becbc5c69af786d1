/**
 * Where the platform answers otherwise than kube-apiserver serving the same kinds as CRDs, on
 * purpose or until a fix lands: the case's name and why. docs/kubernetes-clients.md lists the
 * same table (the oracle's test checks that both agree, and that every case listed still differs).
 */
export interface KnownDifference {
  case: string;
  reason: string;
}

const DELETE_RETURNS_OBJECT =
  "a delete answers with the deleted object, as kube-apiserver does for its built-in kinds; for a custom resource it answers a Status of success. Clients read either";
const KEY_OWNER_AND_TYPE =
  "an access key is owned by its user or team (an ownerReference the server adds, so the garbage collector removes it with them) and gets a spec.type";
const INSTANCE_OWNED_BY_PROJECT =
  "a virtual cluster instance is owned by its project (an ownerReference the server adds, so it is removed with the project), and created without spec.owner is its creator's";
const PATCH_OPERATION_CAUSE =
  "the Status carries a cause on the field `patch` naming the failed operation and why; kube-apiserver's has none";

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  ...["teams", "users", "clusters", "projects", "sharedsecrets", "ownedaccesskeys", "virtualclusterinstances"].map(
    (plural) => ({ case: `${plural}: delete`, reason: DELETE_RETURNS_OBJECT }),
  ),
  { case: "delete with dryRun=All", reason: DELETE_RETURNS_OBJECT },
  {
    case: "ownedaccesskeys: create",
    reason: `${KEY_OWNER_AND_TYPE}; the create answer shows the generated key once (spec.key), which is stored hashed`,
  },
  ...["get", "list", "merge patch", "JSON patch", "watch"].map((verb) => ({
    case: `ownedaccesskeys: ${verb}`,
    reason: KEY_OWNER_AND_TYPE,
  })),
  {
    case: "ownedaccesskeys: server-side apply",
    reason: `${KEY_OWNER_AND_TYPE}; as on create, the answer shows the generated key once`,
  },
  ...["create", "get", "list", "update", "merge patch", "JSON patch", "server-side apply", "watch"].map((verb) => ({
    case: `virtualclusterinstances: ${verb}`,
    reason: INSTANCE_OWNED_BY_PROJECT,
  })),
  {
    case: "number for a label value",
    reason:
      "metadata is checked against its schema like the rest of the object: 422 with the field; kube-apiserver fails to decode it: 400 without one",
  },
  {
    case: "wrong kind in the body",
    reason:
      "a body of another kind than the endpoint's is refused before anything else (400); kube-apiserver validates a custom resource's kind (422, cause kind)",
  },
  {
    case: "project name of 62 characters",
    reason: "a project's name is part of its namespace p-NAME, a DNS label of at most 63 characters",
  },
  {
    case: "update with a resourceVersion that is not a number",
    reason: "400 BadRequest; kube-apiserver answers 500 for a custom resource",
  },
  {
    case: "watch from a resourceVersion that is not a number",
    reason: "400 BadRequest; kube-apiserver answers 500 for a custom resource",
  },
  {
    case: "a cluster-wide kind under a namespace",
    reason: "404 with a NotFound Status; kube-apiserver answers 404 with a plain-text body",
  },
  ...["Strict", "Warn", "Ignore"].map((mode) => ({
    case: `unknown field in an apply, fieldValidation=${mode}`,
    reason:
      "an apply is checked like any other write (400 for Strict; dropped, with a warning for Warn); kube-apiserver answers 500 for an unknown field in an apply to a custom resource",
  })),
  {
    case: "strategic merge patch",
    reason: "the 415 Status carries a cause naming the media type refused; kube-apiserver's has none",
  },
  ...[
    "JSON patch whose test fails",
    "JSON patch removing a missing field",
    "JSON patch replacing past the end of a list",
    "JSON patch replacing under a field the object lacks",
  ].map((name) => ({ case: name, reason: PATCH_OPERATION_CAUSE })),
  ...[
    "JSON patch replacing a list item counted from the end",
    "JSON patch replacing a list item by an index with a leading zero",
  ].map((name) => ({
    case: name,
    reason:
      "a list index is read as RFC 6902 writes it (digits, no leading zero): 422; kube-apiserver's JSON patch library also takes a negative index, counted from the end, and leading zeros",
  })),
  {
    case: "JSON patch testing that a field the object lacks is null",
    reason:
      "a `test` of a missing field fails, as RFC 6902 says (422); kube-apiserver's JSON patch library passes a test for null there",
  },
];
