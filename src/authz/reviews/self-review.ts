import { Type } from "@sinclair/typebox";
import type { ResourceType } from "../../registry/resource-type.js";
import { reviewKind, reviewMetadata } from "./review-kind.js";

const SelfSubjectReviewStatusSchema = Type.Object(
  {
    userInfo: Type.Optional(
      Type.Object(
        {
          username: Type.Optional(Type.String({ description: "The caller's name." })),
          uid: Type.Optional(Type.String({ description: "The caller's uid." })),
          groups: Type.Optional(Type.Array(Type.String(), { description: "The caller's groups and teams." })),
          extra: Type.Optional(
            Type.Record(Type.String(), Type.Array(Type.String()), { description: "More about the caller." }),
          ),
        },
        { description: "Who the caller is." },
      ),
    ),
  },
  { description: "Who the caller is." },
);

/**
 * authentication.k8s.io/v1 SelfSubjectReview: what `kubectl auth whoami` posts. It answers
 * about the caller only, so every authenticated caller may create one.
 */
export function selfSubjectReviewKind(): ResourceType {
  return reviewKind({
    group: "authentication.k8s.io",
    kind: "SelfSubjectReview",
    plural: "selfsubjectreviews",
    description: "Tells the caller who it is.",
    spec: undefined,
    status: SelfSubjectReviewStatusSchema,
    async virtualCreate(body, ctx) {
      const u = ctx.user;
      const extra: Record<string, string[]> = {};
      if (u.subjectKind !== "User") extra["management.platform/subject-kind"] = [u.subjectKind];
      if (u.credential?.name) extra["management.platform/access-key"] = [u.credential.name];
      if (u.impersonatedBy) extra["management.platform/impersonated-by"] = [u.impersonatedBy];
      // Team memberships are part of who the caller is, so they are reported as groups too.
      const groups = [...new Set([...u.groups, ...u.teams.map((t) => `team:${t}`), "system:authenticated"])];
      return {
        kind: "SelfSubjectReview",
        apiVersion: body.apiVersion,
        metadata: reviewMetadata(),
        status: {
          userInfo: {
            username: u.name,
            ...(u.uid ? { uid: u.uid } : {}),
            groups,
            ...(Object.keys(extra).length ? { extra } : {}),
          },
        },
      };
    },
  });
}
