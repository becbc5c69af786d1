import { type FieldError, fieldError } from "../api/errors.js";
import { ACCESS_RULE_VERBS } from "../api/schema/common.js";

/** Validation rules several kinds share. */

export const BUILT_IN_CLUSTER_ROLES = ["platform-management-admin", "platform-management-view"] as const;

export function validateClusterRoles(roles: unknown, path: string): FieldError[] {
  if (!Array.isArray(roles)) return [];
  const errs: FieldError[] = [];
  roles.forEach((r: { name?: unknown }, i) => {
    if (!(BUILT_IN_CLUSTER_ROLES as readonly unknown[]).includes(r?.name)) {
      errs.push(
        fieldError(
          "FieldValueNotSupported",
          `${path}[${i}].name`,
          `supported values: ${BUILT_IN_CLUSTER_ROLES.map((n) => `"${n}"`).join(", ")}`,
          r?.name,
        ),
      );
    }
  });
  return errs;
}

export function validateAccessRules(rules: unknown, path: string): FieldError[] {
  if (!Array.isArray(rules)) return [];
  const errs: FieldError[] = [];
  rules.forEach((rule: { verbs?: unknown[] }, i) => {
    const verbs = rule?.verbs ?? [];
    if (verbs.length === 0) errs.push(fieldError("FieldValueRequired", `${path}[${i}].verbs`, "at least one verb"));
    verbs.forEach((v, j) => {
      if (!(ACCESS_RULE_VERBS as readonly unknown[]).includes(v)) {
        errs.push(
          fieldError(
            "FieldValueNotSupported",
            `${path}[${i}].verbs[${j}]`,
            `supported values: ${ACCESS_RULE_VERBS.map((n) => `"${n}"`).join(", ")}`,
            v,
          ),
        );
      }
    });
  });
  return errs;
}

/** A practical e-mail shape check: one @, a non-empty local part, a dotted domain, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export function validateEmail(email: unknown, path: string): FieldError[] {
  if (email === undefined || email === "") return [];
  return typeof email === "string" && EMAIL.test(email)
    ? []
    : [fieldError("FieldValueInvalid", path, "must be an e-mail address such as user@example.com", email)];
}

const SCOPE_RESOURCE_ENTRY = /^(\*|[a-z0-9.-]+)(\/(\*|[a-z0-9.-]+))?$/;

/** Scope shapes (docs/permissions.md, with the deprecated `rules`). */
export function validateScope(scope: unknown, path: string): FieldError[] {
  if (!scope || typeof scope !== "object") return [];
  const s = scope as {
    rules?: Array<{
      resources?: Array<{ resources?: string[] }>;
      resourceNames?: string[];
      nonResourceURLs?: string[];
    }>;
  };
  const errs: FieldError[] = [];
  (s.rules ?? []).forEach((rule, i) => {
    const rp = `${path}.rules[${i}]`;
    (rule.resources ?? []).forEach((group, j) => {
      const entries = group.resources ?? [];
      entries.forEach((entry, k) => {
        if (!SCOPE_RESOURCE_ENTRY.test(entry)) {
          errs.push(
            fieldError(
              "FieldValueInvalid",
              `${rp}.resources[${j}].resources[${k}]`,
              "must be name, name/sub, *, name/* or */sub",
              entry,
            ),
          );
        }
      });
      // Wildcard entries must not overlap with others: "*" alone, "x/*" not beside "x/y".
      if (entries.includes("*") && entries.length > 1) {
        errs.push(
          fieldError(
            "FieldValueInvalid",
            `${rp}.resources[${j}].resources`,
            "'*' must not be combined with other entries",
            entries,
          ),
        );
      }
      for (const e of entries) {
        const [base, sub] = e.split("/");
        if (sub === "*" && entries.some((o) => o !== e && o.startsWith(`${base}/`))) {
          errs.push(
            fieldError(
              "FieldValueInvalid",
              `${rp}.resources[${j}].resources`,
              `'${e}' overlaps with other entries`,
              entries,
            ),
          );
        }
      }
    });
    if ((rule.resourceNames ?? []).length > 0 && (rule.resources ?? []).length === 0) {
      errs.push(
        fieldError(
          "FieldValueInvalid",
          `${rp}.resourceNames`,
          "resourceNames needs resources to be given",
          rule.resourceNames,
        ),
      );
    }
    (rule.nonResourceURLs ?? []).forEach((url, k) => {
      const star = url.indexOf("*");
      if (star !== -1 && (star !== url.length - 1 || !(url.endsWith("/*") || url === "*"))) {
        errs.push(
          fieldError(
            "FieldValueInvalid",
            `${rp}.nonResourceURLs[${k}]`,
            "a wildcard is allowed only as the whole final path step",
            url,
          ),
        );
      }
    });
  });
  return errs;
}
