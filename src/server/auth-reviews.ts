import type { FastifyReply, FastifyRequest } from "fastify";
import { errors, type FieldError } from "../api/errors.js";
import type { Authorizer, RequestAttributes } from "../authz/contract.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import { decodeObjectBody } from "./body.js";
import { parseMediaRange, type ResponseFormat } from "./negotiation.js";
import { decodeEnvelope, messageField, messageFields, PROTOBUF_CONTENT_TYPE, stringField } from "./protobuf.js";
import { send } from "./respond.js";

/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview and authentication.k8s.io/v1
 * SelfSubjectReview: what `kubectl auth can-i` and `kubectl auth whoami` post. Neither is
 * stored; both answer about the caller only, so every authenticated caller may create them.
 */

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

interface ReviewBody {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown>;
  spec?: { resourceAttributes?: ResourceAttributes; nonResourceAttributes?: { path?: string; verb?: string } };
}

function decode(request: FastifyRequest): ReviewBody {
  const raw = (request.body as Buffer | undefined) ?? Buffer.alloc(0);
  if (parseMediaRange(request.headers["content-type"] ?? "").type === PROTOBUF_CONTENT_TYPE) return decodeProtobuf(raw);
  const value = decodeObjectBody(request.headers["content-type"], raw).value;
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw errors.badRequest("the body must be an object");
  return value as ReviewBody;
}

/** SelfSubjectAccessReview / SelfSubjectReview in protobuf (field numbers from k8s.io/api generated.proto). */
function decodeProtobuf(raw: Buffer): ReviewBody {
  const envelope = decodeEnvelope(raw);
  const obj = messageFields(envelope.raw);
  const body: ReviewBody = { apiVersion: envelope.apiVersion, kind: envelope.kind };
  if (envelope.kind !== "SelfSubjectAccessReview") return body;
  const spec = messageField(obj, 2);
  if (!spec) return { ...body, spec: {} };
  const ra = messageField(spec, 1);
  const nra = messageField(spec, 2);
  const strings = (m: Map<number, Buffer[]>, names: string[]) =>
    Object.fromEntries(
      names.flatMap((name, i) => {
        const v = stringField(m, i + 1);
        return v === undefined ? [] : [[name, v]];
      }),
    );
  return {
    ...body,
    spec: {
      ...(ra
        ? {
            resourceAttributes: strings(ra, [
              "namespace",
              "verb",
              "group",
              "version",
              "resource",
              "subresource",
              "name",
            ]) as ResourceAttributes,
          }
        : {}),
      ...(nra ? { nonResourceAttributes: strings(nra, ["path", "verb"]) } : {}),
    },
  };
}

function checkKind(body: ReviewBody, apiVersion: string, kind: string): void {
  if (body.kind !== undefined && body.kind !== kind)
    throw errors.badRequest(`the body's kind must be ${kind}, not "${String(body.kind)}"`);
  if (body.apiVersion !== undefined && body.apiVersion !== apiVersion)
    throw errors.badRequest(`the body's apiVersion must be ${apiVersion}, not "${String(body.apiVersion)}"`);
}

/** The decision for one review, asking again with the object when the authorizer's rules live on objects. */
export async function reviewAccess(
  authorizer: Authorizer,
  registry: Registry,
  ctx: RequestContext,
  spec: NonNullable<ReviewBody["spec"]>,
): Promise<{ allowed: boolean; reason?: string }> {
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  const attrs: RequestAttributes = ra
    ? {
        verb: ra.verb ?? "",
        apiGroup: ra.group ?? "",
        resource: ra.resource ?? "",
        subresource: ra.subresource ?? "",
        namespace: ra.namespace ?? "",
        name: ra.name ?? "",
        resourceRequest: true,
      }
    : {
        verb: nra?.verb ?? "",
        apiGroup: "",
        resource: "",
        subresource: "",
        namespace: "",
        name: "",
        path: nra?.path ?? "",
        resourceRequest: false,
      };
  let decision = await authorizer.authorize(ctx.user, attrs);
  if (!decision.allowed && attrs.resourceRequest && attrs.name && authorizer.needsObject?.(ctx.user, attrs)) {
    const entry = registry.find(attrs.resource);
    if (entry && entry.rt.group === attrs.apiGroup && !entry.rt.virtualCreate) {
      const object = await entry.store.read(entry.rt.namespaced ? attrs.namespace : undefined, attrs.name);
      if (object) decision = await authorizer.authorize(ctx.user, { ...attrs, object });
    }
  }
  return { allowed: decision.allowed, ...(decision.reason ? { reason: decision.reason } : {}) };
}

export async function handleSelfSubjectAccessReview(
  deps: { authorizer: Authorizer; registry: Registry },
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  format: ResponseFormat,
): Promise<unknown> {
  const apiVersion = "authorization.k8s.io/v1";
  const body = decode(request);
  checkKind(body, apiVersion, "SelfSubjectAccessReview");
  const spec = body.spec ?? {};
  const fieldErrors: FieldError[] = [];
  if (!spec.resourceAttributes === !spec.nonResourceAttributes) {
    fieldErrors.push({
      type: "FieldValueInvalid",
      field: "spec.resourceAttributes",
      detail: "exactly one of nonResourceAttributes or resourceAttributes must be specified",
      value: spec.resourceAttributes ?? null,
    });
  }
  if (fieldErrors.length) throw errors.invalid("SelfSubjectAccessReview", "authorization.k8s.io", "", fieldErrors);
  const status = await reviewAccess(deps.authorizer, deps.registry, ctx, spec);
  return send(
    reply,
    201,
    {
      kind: "SelfSubjectAccessReview",
      apiVersion,
      metadata: { creationTimestamp: null },
      spec,
      status,
    },
    format,
  );
}

export async function handleSelfSubjectReview(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  format: ResponseFormat,
): Promise<unknown> {
  const apiVersion = "authentication.k8s.io/v1";
  checkKind(decode(request), apiVersion, "SelfSubjectReview");
  const u = ctx.user;
  const extra: Record<string, string[]> = {};
  if (u.subjectKind !== "User") extra["management.platform/subject-kind"] = [u.subjectKind];
  if (u.credential?.name) extra["management.platform/access-key"] = [u.credential.name];
  if (u.impersonatedBy) extra["management.platform/impersonated-by"] = [u.impersonatedBy];
  // Team memberships are part of who the caller is, so they are reported as groups too.
  const groups = [...new Set([...u.groups, ...u.teams.map((t) => `team:${t}`), "system:authenticated"])];
  return send(
    reply,
    201,
    {
      kind: "SelfSubjectReview",
      apiVersion,
      metadata: { creationTimestamp: null },
      status: {
        userInfo: {
          username: u.name,
          ...(u.uid ? { uid: u.uid } : {}),
          groups,
          ...(Object.keys(extra).length ? { extra } : {}),
        },
      },
    },
    format,
  );
}
