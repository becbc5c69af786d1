import { type Static, Type } from "@sinclair/typebox";
import { fieldError } from "../../api/errors.js";
import { nowTimestamp, specOf } from "../../api/object.js";
import { ScopeSchema } from "../../api/schema/common.js";
import { objectSchema } from "../../api/schema/meta.js";
import { impersonationOf } from "../../registry/impersonation-identity.js";
import type { RequestContext } from "../../registry/request-context.js";
import type { ResourceType } from "../../registry/resource-type.js";
import { defineKind, nameColumn } from "../define.js";
import { validateScope } from "../validation.js";

const DEFAULT_TOKEN_TTL_SECONDS = 1800;

/** Signs the token; the server's ES256 key lives behind it. */
export interface TokenIssuer {
  issue(
    claims: { sub: string; subjectKind: string; scope?: Record<string, unknown>; groups?: string[] },
    ttlSeconds: number,
  ): Promise<string>;
  /** The longest lifetime the server grants. */
  maxTtlSeconds: number;
}

const DirectClusterEndpointTokenSpecSchema = Type.Object(
  {
    ttl: Type.Optional(Type.Integer({ description: "Lifetime of the token in seconds (default 1800)." })),
    scope: Type.Optional(ScopeSchema),
  },
  { description: "What token to issue." },
);

const DirectClusterEndpointTokenStatusSchema = Type.Object({
  token: Type.Optional(Type.String({ description: "The issued token (a JWT)." })),
});

/** The spec and status of a DirectClusterEndpointToken, as its schema admits them. */
export type DirectClusterEndpointTokenSpec = Static<typeof DirectClusterEndpointTokenSpecSchema>;
export type DirectClusterEndpointTokenStatus = Static<typeof DirectClusterEndpointTokenStatusSchema>;

export function directClusterEndpointTokenResource(issuer: TokenIssuer): ResourceType {
  return defineKind({
    kind: "DirectClusterEndpointToken",
    plural: "directclusterendpointtokens",
    singular: "directclusterendpointtoken",
    shortNames: [],
    namespaced: false,
    hasStatus: false,
    verbs: ["create"],
    description: "Creating a DirectClusterEndpointToken issues a signed token for connecting to a cluster directly.",
    schema: objectSchema(
      "DirectClusterEndpointToken",
      "Creating a DirectClusterEndpointToken issues a signed token for connecting to a cluster directly.",
      DirectClusterEndpointTokenSpecSchema,
      DirectClusterEndpointTokenStatusSchema,
    ),
    secretFields: ["status.token"],
    columns: [nameColumn()],
    strategy: {
      validate(obj) {
        const spec = specOf<DirectClusterEndpointTokenSpec>(obj);
        const errs = validateScope(spec.scope, "spec.scope");
        if (spec.ttl !== undefined && spec.ttl <= 0) {
          errs.push(fieldError("FieldValueInvalid", "spec.ttl", "must be a positive number of seconds", spec.ttl));
        }
        return errs;
      },
    },
    async virtualCreate(body, ctx: RequestContext) {
      const spec = specOf<DirectClusterEndpointTokenSpec>(body);
      const requested = spec.ttl ?? DEFAULT_TOKEN_TTL_SECONDS;
      const ttl = Math.min(requested, issuer.maxTtlSeconds);
      const token = await issuer.issue(
        {
          sub: ctx.user.name,
          subjectKind: ctx.user.subjectKind,
          scope: spec.scope,
          // What the agent beside a cluster impersonates, when the platform may be out of reach.
          groups: [...impersonationOf(ctx.user).groups],
        },
        ttl,
      );
      return {
        apiVersion: body.apiVersion,
        kind: "DirectClusterEndpointToken",
        metadata: { name: body.metadata.name, creationTimestamp: nowTimestamp() },
        spec: { ...spec, ttl },
        status: { token },
      };
    },
  });
}
