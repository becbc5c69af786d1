/**
 * kube-apiserver's audit policy (`audit.k8s.io/v1` `Policy`): the first rule that matches a
 * request decides its level; no rule matching means `None`. Without a policy file every request
 * is logged at `Metadata`.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";

const AUDIT_LEVELS = ["None", "Metadata", "Request", "RequestResponse"] as const;
export type AuditLevel = (typeof AUDIT_LEVELS)[number];
const AUDIT_STAGES = ["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"] as const;
export type AuditStage = (typeof AUDIT_STAGES)[number];

interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
}

export interface AuditPolicy {
  rules: PolicyRule[];
  omitStages: AuditStage[];
}

/** What a rule is matched against. */
export interface AuditAttributes {
  user: string;
  groups: readonly string[];
  verb: string;
  /** Empty for a non-resource request. */
  resource: string;
  subresource: string;
  apiGroup: string;
  namespace: string;
  name: string;
  path: string;
}

export const METADATA_POLICY: AuditPolicy = { rules: [{ level: "Metadata" }], omitStages: [] };

/** Reads and checks a policy file; every mistake is reported with where it is. */
export function loadAuditPolicy(file: string): AuditPolicy {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new Error(`audit policy ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseAuditPolicy(doc, file);
}

export function parseAuditPolicy(doc: unknown, where = "audit policy"): AuditPolicy {
  const fail = (msg: string): never => {
    throw new Error(`${where}: ${msg}`);
  };
  const d = (doc ?? {}) as { kind?: unknown; apiVersion?: unknown; rules?: unknown; omitStages?: unknown };
  if (d.kind !== "Policy") fail(`kind must be Policy, got ${JSON.stringify(d.kind)}`);
  if (d.apiVersion !== "audit.k8s.io/v1")
    fail(`apiVersion must be audit.k8s.io/v1, got ${JSON.stringify(d.apiVersion)}`);
  if (!Array.isArray(d.rules)) fail("rules must be a list");
  const stages = (v: unknown, at: string): AuditStage[] => {
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((s) => !(AUDIT_STAGES as readonly unknown[]).includes(s)))
      fail(`${at} must list stages among ${AUDIT_STAGES.join(", ")}`);
    return v as AuditStage[];
  };
  const rules = (d.rules as unknown[]).map((r, i) => {
    const rule = (r ?? {}) as PolicyRule;
    if (!(AUDIT_LEVELS as readonly unknown[]).includes(rule.level))
      fail(`rules[${i}].level must be one of ${AUDIT_LEVELS.join(", ")}, got ${JSON.stringify(rule.level)}`);
    for (const f of ["users", "userGroups", "verbs", "namespaces", "nonResourceURLs"] as const) {
      const v = rule[f];
      if (v !== undefined && (!Array.isArray(v) || v.some((x) => typeof x !== "string")))
        fail(`rules[${i}].${f} must be a list of strings`);
    }
    if (rule.resources !== undefined && !Array.isArray(rule.resources)) fail(`rules[${i}].resources must be a list`);
    return { ...rule, omitStages: stages(rule.omitStages, `rules[${i}].omitStages`) };
  });
  return { rules, omitStages: stages(d.omitStages, "omitStages") };
}

/** The first matching rule, or undefined (level None). */
export function matchRule(policy: AuditPolicy, a: AuditAttributes): PolicyRule | undefined {
  return policy.rules.find((rule) => ruleMatches(rule, a));
}

function ruleMatches(rule: PolicyRule, a: AuditAttributes): boolean {
  if (rule.users?.length && !rule.users.includes(a.user)) return false;
  if (rule.userGroups?.length && !rule.userGroups.some((g) => a.groups.includes(g))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(a.verb)) return false;
  const resourceRequest = a.resource !== "";
  if (rule.resources?.length || rule.namespaces?.length) {
    if (!resourceRequest) return false;
    if (rule.namespaces?.length && !rule.namespaces.includes(a.namespace)) return false;
    if (rule.resources?.length && !rule.resources.some((g) => groupMatches(g, a))) return false;
  }
  if (rule.nonResourceURLs?.length) {
    if (resourceRequest) return false;
    return rule.nonResourceURLs.some((u) => (u.endsWith("*") ? a.path.startsWith(u.slice(0, -1)) : a.path === u));
  }
  return true;
}

function groupMatches(g: GroupResources, a: AuditAttributes): boolean {
  if ((g.group ?? "") !== a.apiGroup && g.group !== "*") return false;
  if (g.resourceNames?.length && !g.resourceNames.includes(a.name)) return false;
  if (!g.resources?.length) return true;
  const full = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return g.resources.some(
    (r) =>
      r === "*" ||
      r === full ||
      r === `*/${a.subresource}` ||
      r === `${a.resource}/*` ||
      (r === a.resource && !a.subresource),
  );
}
