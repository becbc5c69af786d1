/**
 * Waiting until kube-apiserver's authorizer grants what an RBAC binding binds. The RBAC
 * authorizer reads roles and bindings from its own watch of them, so a binding it has just
 * stored may be unknown to it for a moment: a request sent at once can still be refused
 * Forbidden. A test's set-up that grants rights therefore returns only once they are granted.
 *
 * One check per binding: a SubjectAccessReview, asked as the administrator, of the binding's
 * first subject doing what its role's first rule allows. Allowed means the authorizer has seen
 * the binding and its role; checking every rule would only repeat that.
 */
import { parseAllDocuments } from "yaml";
import { waitFor } from "../wait-for.js";
import type { AdminClient } from "./admin-client.js";

/** An RBAC policy rule (rbac.authorization.k8s.io/v1 PolicyRule). */
export interface PolicyRule {
  readonly apiGroups?: string[];
  readonly resources?: string[];
  readonly resourceNames?: string[];
  readonly nonResourceURLs?: string[];
  readonly verbs: string[];
}

/** What of the administrator's client the checks use (a stand-in in unit tests). */
export type AdminRequests = Pick<AdminClient, "must">;

/** An RBAC binding's subject, as RoleBindings list them (ServiceAccount, User or Group). */
export interface BindingSubject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/** A RoleBinding (with `namespace`) or ClusterRoleBinding (without): what the checks need of it. */
export interface Binding {
  readonly name: string;
  readonly namespace?: string;
  readonly roleRef: { readonly kind: string; readonly name: string };
  readonly subjects: readonly BindingSubject[];
}

/** A SubjectAccessReview's spec (authorization.k8s.io/v1). */
export interface AccessReviewSpec {
  user?: string;
  groups?: string[];
  resourceAttributes?: {
    namespace?: string;
    verb: string;
    group: string;
    resource: string;
    subresource?: string;
    name?: string;
  };
  nonResourceAttributes?: { path: string; verb: string };
}

const RBAC = "/apis/rbac.authorization.k8s.io/v1";

/**
 * The review of `subject` doing what `rule` allows, in `namespace` or (without one) cluster-wide:
 * the rule's first verb on its first resource (a `pods/log` is a subresource) of its first API
 * group, or its first non-resource URL. A wildcard is asked as written, which only a wildcard grants.
 */
export function accessReview(subject: BindingSubject, rule: PolicyRule, namespace?: string): AccessReviewSpec {
  const who: AccessReviewSpec =
    subject.kind === "ServiceAccount"
      ? { user: `system:serviceaccount:${subject.namespace}:${subject.name}` }
      : subject.kind === "Group"
        ? { groups: [subject.name] }
        : { user: subject.name };
  const verb = rule.verbs[0] ?? "*";
  const path = rule.nonResourceURLs?.[0];
  if (path !== undefined && !rule.resources?.length) return { ...who, nonResourceAttributes: { path, verb } };
  const [resource = "*", subresource] = (rule.resources?.[0] ?? "*").split("/");
  return {
    ...who,
    resourceAttributes: {
      ...(namespace === undefined ? {} : { namespace }),
      verb,
      group: rule.apiGroups?.[0] ?? "",
      resource,
      ...(subresource === undefined ? {} : { subresource }),
      ...(rule.resourceNames?.length ? { name: rule.resourceNames[0] } : {}),
    },
  };
}

/** The rules of the role `binding` refers to, as stored; none when it does not exist (yet). */
async function boundRules(admin: AdminRequests, binding: Binding): Promise<PolicyRule[]> {
  const { kind, name } = binding.roleRef;
  const scope =
    kind === "Role" && binding.namespace !== undefined ? `/namespaces/${encodeURIComponent(binding.namespace)}` : "";
  const res = await admin.must(
    "GET",
    `${RBAC}${scope}/${kind.toLowerCase()}s/${encodeURIComponent(name)}`,
    undefined,
    [404],
  );
  if (res.status === 404) return [];
  return ((res.body as { rules?: PolicyRule[] }).rules ?? []) as PolicyRule[];
}

/**
 * Resolves once the authorizer allows `binding`'s first subject what its role's first rule
 * allows. A role without rules (missing, or an aggregated ClusterRole the controller manager has
 * not filled yet) grants nothing to wait for. Bounded by waitFor, as a guard against hanging.
 */
export async function waitUntilBindingGrants(admin: AdminRequests, binding: Binding): Promise<void> {
  const [subject] = binding.subjects;
  const [rule] = await boundRules(admin, binding);
  if (!subject || !rule) return;
  const spec = accessReview(subject, rule, binding.namespace);
  const where = binding.namespace === undefined ? "" : ` in ${binding.namespace}`;
  await waitFor(
    `kube-apiserver's authorizer granting what binding ${binding.name}${where} binds to ${subject.kind} ${subject.name}`,
    async () => {
      const res = await admin.must("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec,
      });
      return (res.body as { status?: { allowed?: boolean; reason?: string } }).status ?? {};
    },
    (status) => status.allowed === true,
  );
}

/** The RoleBindings and ClusterRoleBindings among a YAML or JSON manifest's objects (a `List`'s items included). */
export function bindingsIn(manifest: string): Binding[] {
  // biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects of any kind
  type KubeObject = Record<string, any>;
  const documents = parseAllDocuments(manifest).map((d) => d.toJS() as KubeObject | null);
  const objects = documents.flatMap((o) => (o?.kind === "List" && Array.isArray(o.items) ? o.items : [o]));
  return objects
    .filter((o): o is KubeObject => o?.kind === "RoleBinding" || o?.kind === "ClusterRoleBinding")
    .map((o) => ({
      name: o.metadata?.name ?? "",
      // A RoleBinding applied without a namespace lands in the administrator's default one.
      ...(o.kind === "RoleBinding" ? { namespace: o.metadata?.namespace ?? "default" } : {}),
      roleRef: o.roleRef,
      subjects: o.subjects ?? [],
    }));
}
