import { type Static, Type } from "@sinclair/typebox";
import { isApiError } from "../../api/errors.js";
import { type KubeObject, specOf } from "../../api/object.js";
import { readForRules } from "../../registry/corrupt-object.js";
import type { Registry } from "../../registry/registry.js";
import { type RequestContext, systemContext, type UserInfo } from "../../registry/request-context.js";
import type { ResourceType } from "../../registry/resource-type.js";
import { ACCESS_VERBS, UNSAFE_DELETE_VERB } from "../authorizer.js";
import { type Authorizer, nonResourceAttributes, type RequestAttributes } from "../contract.js";
import { reviewKind, reviewMetadata } from "./review-kind.js";

/**
 * authorization.k8s.io/v1 SelfSubjectRulesReview: what `kubectl auth can-i --list` posts. The
 * rules are found by asking the authorizer itself (so scopes, roles, memberships and access
 * rules all count): first for each kind and verb on any object, then object by object for the
 * kinds whose rights live on single objects, each such grant reported with its resourceNames.
 */

/** Objects per kind looked at one by one; beyond that the answer says it is incomplete. */
const MAX_OBJECTS_PER_KIND = 1000;

const strings = (description: string) => Type.Array(Type.String(), { description });

const ResourceRuleSchema = Type.Object({
  verbs: strings("The verbs allowed."),
  apiGroups: strings("The API groups of the resources."),
  resources: strings("The resources (plural)."),
  resourceNames: Type.Optional(strings("The objects the rule is limited to; absent: every object.")),
});

const SelfSubjectRulesReviewSpecSchema = Type.Object(
  { namespace: Type.Optional(Type.String({ description: "The namespace to list rules in." })) },
  { description: "Where to list the caller's rules." },
);

const SelfSubjectRulesReviewStatusSchema = Type.Object(
  {
    resourceRules: Type.Optional(
      Type.Array(ResourceRuleSchema, { description: "What the caller may do on resources." }),
    ),
    nonResourceRules: Type.Optional(
      Type.Array(Type.Object({ verbs: strings("The verbs allowed."), nonResourceURLs: strings("The paths.") }), {
        description: "What the caller may do on paths outside the resources.",
      }),
    ),
    incomplete: Type.Optional(Type.Boolean({ description: "Whether some rules could not be listed." })),
    evaluationError: Type.Optional(Type.String({ description: "Why the list is incomplete." })),
  },
  { description: "The caller's rules." },
);

type ResourceRule = Static<typeof ResourceRuleSchema>;
type SelfSubjectRulesReviewSpec = Static<typeof SelfSubjectRulesReviewSpecSchema>;

/** The verbs a kind can be asked about: its served verbs, plus use/bind where access rules name them, and the unsafe delete. */
function verbsOf(rt: ResourceType): string[] {
  const verbs = new Set<string>(rt.verbs);
  if (rt.accessRules) for (const v of ACCESS_VERBS) verbs.add(v);
  if (verbs.has("delete")) verbs.add(UNSAFE_DELETE_VERB);
  return [...verbs];
}

function attrs(rt: ResourceType, verb: string, namespace: string, name = "", object?: KubeObject): RequestAttributes {
  return {
    verb,
    apiGroup: rt.group,
    resource: rt.plural,
    subresource: "",
    namespace: rt.namespaced ? namespace : "",
    name,
    resourceRequest: true,
    ...(object ? { object } : {}),
  };
}

async function allowedVerbs(
  authorizer: Authorizer,
  user: UserInfo,
  verbs: string[],
  make: (verb: string) => RequestAttributes,
): Promise<string[]> {
  const out: string[] = [];
  for (const verb of verbs) if ((await authorizer.authorize(user, make(verb))).allowed) out.push(verb);
  return out;
}

/** Rules of one kind: on any object, then per object for what only single objects grant. */
async function rulesOfKind(
  deps: { authorizer: Authorizer; registry: Registry },
  ctx: RequestContext,
  rt: ResourceType,
  namespace: string,
): Promise<{ rules: ResourceRule[]; incomplete: boolean }> {
  const { authorizer } = deps;
  const user = ctx.user;
  if (rt.namespaced && !namespace) return { rules: [], incomplete: false };
  const verbs = verbsOf(rt);
  const general = await allowedVerbs(authorizer, user, verbs, (v) => attrs(rt, v, namespace));
  const rules: ResourceRule[] = [];
  if (general.length) rules.push({ verbs: general, apiGroups: [rt.group], resources: [rt.plural] });
  // No access rule or membership grants the unsafe delete: it is never asked object by object.
  const rest = verbs.filter((v) => !general.includes(v) && v !== UNSAFE_DELETE_VERB);
  if (rest.length === 0) return { rules, incomplete: false };
  const perObject = !!authorizer.needsObject?.(user, attrs(rt, "get", namespace, "x"));
  const { objects, incomplete } = await candidates(deps.registry, ctx.user, rt, namespace, perObject);
  for (const obj of objects) {
    const name = obj.metadata.name ?? "";
    const granted = await allowedVerbs(authorizer, user, rest, (v) => attrs(rt, v, namespace, name, obj));
    if (granted.length)
      rules.push({ verbs: granted, apiGroups: [rt.group], resources: [rt.plural], resourceNames: [name] });
  }
  return { rules, incomplete };
}

/**
 * The objects worth asking about one by one: the caller's own user and teams (the self rules), and
 * every object of a kind whose rights can live on the object (access rules, key ownership,
 * project membership). Read as the server; only names the caller holds a right on are reported.
 */
async function candidates(
  registry: Registry,
  user: UserInfo,
  rt: ResourceType,
  namespace: string,
  perObject: boolean,
): Promise<{ objects: KubeObject[]; incomplete: boolean }> {
  const store = registry.find(rt.plural)?.store;
  if (!store || rt.virtualCreate) return { objects: [], incomplete: false };
  const own = ownNames(user, rt.plural);
  if (own) {
    const objects: KubeObject[] = [];
    for (const name of own) {
      const obj = await readForRules(store, undefined, name);
      if (obj) objects.push(obj);
    }
    return { objects, incomplete: false };
  }
  if (!perObject) return { objects: [], incomplete: false };
  try {
    const list = await store.list(systemContext(), rt.namespaced ? namespace : undefined, {
      limit: MAX_OBJECTS_PER_KIND,
    });
    return { objects: list.items, incomplete: !!list.metadata.continue };
  } catch (err) {
    // A stored object that does not decode fails the list: what its rules grant is unknown.
    if (isApiError(err, "StorageReadError")) return { objects: [], incomplete: true };
    throw err;
  }
}

function ownNames(user: UserInfo, plural: string): string[] | undefined {
  if (plural === "users") return user.subjectKind === "User" ? [user.name] : [];
  if (plural === "teams") return user.subjectKind === "Team" ? [user.name] : user.teams;
  return undefined;
}

/**
 * Core Events are in the core group's registry, not among the management group's kinds above, so
 * they are asked about on their own: everyone may read them, each filtered to the objects the
 * caller may get.
 */
async function eventRules(authorizer: Authorizer, user: UserInfo, namespace: string): Promise<ResourceRule[]> {
  const verbs = await allowedVerbs(
    authorizer,
    user,
    ["get", "list", "watch", "create", "update", "delete"],
    (verb) => ({
      verb,
      apiGroup: "",
      resource: "events",
      subresource: "",
      namespace,
      name: "",
      resourceRequest: true,
    }),
  );
  return verbs.length ? [{ verbs, apiGroups: [""], resources: ["events"] }] : [];
}

/** What every authenticated caller may read outside the resources: discovery, version, openapi. */
async function nonResourceRules(authorizer: Authorizer, user: UserInfo) {
  const probe = nonResourceAttributes("get", "/version");
  return (await authorizer.authorize(user, probe)).allowed ? [{ verbs: ["get"], nonResourceURLs: ["*"] }] : [];
}

/** Kinds granted the same verbs on any object share one rule, as kube-apiserver's answers do. */
function merge(rules: ResourceRule[]): ResourceRule[] {
  const out: ResourceRule[] = [];
  for (const rule of rules) {
    const same = !rule.resourceNames
      ? out.find(
          (r) => !r.resourceNames && r.apiGroups[0] === rule.apiGroups[0] && r.verbs.join() === rule.verbs.join(),
        )
      : undefined;
    if (same) same.resources.push(...rule.resources);
    else out.push({ ...rule, resources: [...rule.resources] });
  }
  return out;
}

/** Every rule of the caller in `namespace`, merged as kube-apiserver's answers are. */
async function rulesOf(
  deps: { authorizer: Authorizer; registry: Registry },
  ctx: RequestContext,
  namespace: string,
): Promise<Record<string, unknown>> {
  const rules: ResourceRule[] = [];
  let incomplete = false;
  for (const rt of deps.registry.resourceTypes()) {
    const kind = await rulesOfKind(deps, ctx, rt, namespace);
    rules.push(...kind.rules);
    incomplete ||= kind.incomplete;
  }
  rules.push(...(await eventRules(deps.authorizer, ctx.user, namespace)));
  return {
    resourceRules: merge(rules),
    nonResourceRules: await nonResourceRules(deps.authorizer, ctx.user),
    incomplete,
  };
}

export function selfSubjectRulesReviewKind(deps: { authorizer: Authorizer; registry: Registry }): ResourceType {
  return reviewKind({
    group: "authorization.k8s.io",
    kind: "SelfSubjectRulesReview",
    plural: "selfsubjectrulesreviews",
    description: "Lists what the caller may do in a namespace.",
    spec: SelfSubjectRulesReviewSpecSchema,
    status: SelfSubjectRulesReviewStatusSchema,
    async virtualCreate(body, ctx) {
      const namespace = specOf<SelfSubjectRulesReviewSpec>(body).namespace ?? "";
      return {
        kind: "SelfSubjectRulesReview",
        apiVersion: body.apiVersion,
        metadata: reviewMetadata(),
        spec: { namespace },
        status: await rulesOf(deps, ctx, namespace),
      };
    },
  });
}
