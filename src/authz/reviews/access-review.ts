import { type Static, Type } from "@sinclair/typebox";
import type { FieldError } from "../../api/errors.js";
import { type KubeObject, specOf } from "../../api/object.js";
import { readForRules } from "../../registry/corrupt-object.js";
import type { Registry } from "../../registry/registry.js";
import type { RequestContext } from "../../registry/request-context.js";
import type { ResourceType } from "../../registry/resource-type.js";
import { type Authorizer, nonResourceAttributes, type RequestAttributes } from "../contract.js";
import { reviewKind, reviewMetadata } from "./review-kind.js";

const str = (description: string) => Type.Optional(Type.String({ description }));
const selector = (description: string) => Type.Optional(Type.Object({}, { description, additionalProperties: true }));

const ResourceAttributesSchema = Type.Object(
  {
    namespace: str("The namespace of the action; empty for cluster-scoped resources."),
    verb: str("A Kubernetes resource API verb (get, list, create, use, …)."),
    group: str("The API group of the resource."),
    version: str("The API version of the resource."),
    resource: str("The resource (plural)."),
    subresource: str("The subresource, or empty."),
    name: str("The name of the object, or empty for all."),
    fieldSelector: selector("A field selector limiting the request (not used by this server's rules)."),
    labelSelector: selector("A label selector limiting the request (not used by this server's rules)."),
  },
  { description: "A request on a resource." },
);

const SelfSubjectAccessReviewSpecSchema = Type.Object(
  {
    resourceAttributes: Type.Optional(ResourceAttributesSchema),
    nonResourceAttributes: Type.Optional(
      Type.Object(
        { path: str("The URL path of the request."), verb: str("The HTTP verb, lower case.") },
        { description: "A request on a path outside the resources." },
      ),
    ),
  },
  { description: "The action to check: exactly one of resourceAttributes and nonResourceAttributes." },
);

const SelfSubjectAccessReviewStatusSchema = Type.Object(
  {
    allowed: Type.Optional(Type.Boolean({ description: "Whether the action is allowed." })),
    denied: Type.Optional(Type.Boolean({ description: "Whether the action is denied outright." })),
    reason: str("Why, when the authorizer says."),
    evaluationError: str("An error met while deciding."),
  },
  { description: "The decision." },
);

export type SelfSubjectAccessReviewSpec = Static<typeof SelfSubjectAccessReviewSpecSchema>;

/** The request a review asks about, as the authorizer takes it. */
function requestAttributes(spec: SelfSubjectAccessReviewSpec): RequestAttributes {
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  if (ra) {
    return {
      verb: ra.verb ?? "",
      apiGroup: ra.group ?? "",
      resource: ra.resource ?? "",
      subresource: ra.subresource ?? "",
      namespace: ra.namespace ?? "",
      name: ra.name ?? "",
      resourceRequest: true,
    };
  }
  return nonResourceAttributes(nra?.verb ?? "", nra?.path ?? "");
}

/** The decision for one review, asking again with the object when the authorizer's rules live on objects. */
async function reviewAccess(
  authorizer: Authorizer,
  registry: Registry,
  ctx: RequestContext,
  spec: SelfSubjectAccessReviewSpec,
): Promise<{ allowed: boolean; reason?: string }> {
  const attrs = requestAttributes(spec);
  let decision = await authorizer.authorize(ctx.user, attrs);
  if (!decision.allowed && attrs.resourceRequest && attrs.name && authorizer.needsObject?.(ctx.user, attrs)) {
    const entry = registry.find(attrs.resource);
    if (entry && entry.rt.group === attrs.apiGroup && !entry.rt.virtualCreate) {
      const object = await readForRules(entry.store, entry.rt.namespaced ? attrs.namespace : undefined, attrs.name);
      if (object) decision = await authorizer.authorize(ctx.user, { ...attrs, object });
    }
  }
  return { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) };
}

/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview: what `kubectl auth can-i` posts. It answers
 * about the caller only, so every authenticated caller may create one.
 */
export function selfSubjectAccessReviewKind(deps: { authorizer: Authorizer; registry: Registry }): ResourceType {
  return reviewKind({
    group: "authorization.k8s.io",
    kind: "SelfSubjectAccessReview",
    plural: "selfsubjectaccessreviews",
    description: "Checks whether the caller may perform an action.",
    spec: SelfSubjectAccessReviewSpecSchema,
    status: SelfSubjectAccessReviewStatusSchema,
    strategy: {
      validate(obj: KubeObject): FieldError[] {
        const spec = specOf<SelfSubjectAccessReviewSpec>(obj);
        if (!spec.resourceAttributes !== !spec.nonResourceAttributes) return [];
        return [
          {
            type: "FieldValueInvalid",
            field: "spec.resourceAttributes",
            detail: "exactly one of nonResourceAttributes or resourceAttributes must be specified",
            value: spec.resourceAttributes ?? null,
          },
        ];
      },
    },
    async virtualCreate(body, ctx) {
      const spec = specOf<SelfSubjectAccessReviewSpec>(body);
      return {
        kind: "SelfSubjectAccessReview",
        apiVersion: body.apiVersion,
        metadata: reviewMetadata(),
        spec,
        status: await reviewAccess(deps.authorizer, deps.registry, ctx, spec),
      };
    },
  });
}
