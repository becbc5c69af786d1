import type { Registry } from "../../registry/registry.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { Authorizer } from "../contract.js";
import { selfSubjectAccessReviewKind } from "./access-review.js";
import { selfSubjectRulesReviewKind } from "./rules-review.js";
import { selfSubjectReviewKind } from "./self-review.js";

/**
 * The review kinds kubectl's `auth` commands create (can-i, can-i --list, whoami). They are
 * served beside the management group under their own groups, each create going through its
 * Store's write pipeline (`Store.createVirtual`); `registry` is the one the reviews ask about.
 */
export function reviewKinds(deps: { authorizer: Authorizer; registry: Registry }): ResourceType[] {
  return [selfSubjectAccessReviewKind(deps), selfSubjectRulesReviewKind(deps), selfSubjectReviewKind()];
}
