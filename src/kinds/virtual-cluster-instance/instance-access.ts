import { Type } from "@sinclair/typebox";
import { type FieldError, fieldError } from "../../api/errors.js";
import { AccessRuleSchema } from "../../api/schema/common.js";

/**
 * The role a user or team with `use` on an instance gets inside its virtual cluster when the
 * access rule names none, and the owner's: full rights, as the system this platform replaces
 * gives the members of a virtual cluster (docs/virtual-clusters.md, "Rights inside the virtual cluster").
 */
export const DEFAULT_INSIDE_ROLE = "cluster-admin";

/** An access rule of an instance, with the ClusterRole it gives inside the virtual cluster. */
export const InstanceAccessRuleSchema = Type.Object(
  {
    ...AccessRuleSchema.properties,
    clusterRole: Type.Optional(
      Type.String({
        description: `The ClusterRole inside the virtual cluster the rule's users and teams are bound to when the rule grants \`use\` (default ${DEFAULT_INSIDE_ROLE}).`,
      }),
    ),
  },
  { description: "An access rule on the instance, and the role it gives inside the virtual cluster." },
);

/**
 * A role name is the last segment of its API path, as kube-apiserver requires of every name
 * (path segment names): not empty, not `.` or `..`, no `/` or `%`.
 */
export function insideRoleErrors(rules: ReadonlyArray<{ clusterRole?: string }> | undefined): FieldError[] {
  const errs: FieldError[] = [];
  (rules ?? []).forEach((rule, i) => {
    const role = rule.clusterRole;
    if (role === undefined) return;
    if (role === "" || role === "." || role === ".." || /[/%]/.test(role)) {
      errs.push(
        fieldError(
          "FieldValueInvalid",
          `spec.access[${i}].clusterRole`,
          'must be the name of a ClusterRole: not empty, not "." or "..", without "/" or "%"',
          role,
        ),
      );
    }
  });
  return errs;
}
