import { readFileSync } from "node:fs";
import { parseAllDocuments, stringify } from "yaml";
import type { PolicyRule } from "./kube-control-plane.js";

/**
 * The RBAC manifests docs/gateway.md tells a cluster admin to apply, read from the docs as
 * written, so a test of them tests what users copy. The section's first YAML block grants the
 * platform its rights; the second is the example grant to a platform team.
 */

const DOC = "docs/gateway.md";
const SECTION = "### What a cluster admin grants the platform";

// biome-ignore lint/suspicious/noExplicitAny: Kubernetes manifests of any kind
export type Manifest = Record<string, any>;

/**
 * The ```yaml blocks of the section, in order, each as the text the docs show (by default the
 * gateway's section above; docs/cluster-access.md names its own), up to the next `###` heading.
 */
export function documentedYamlBlocks(doc = DOC, heading = SECTION): string[] {
  const text = readFileSync(doc, "utf8");
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`${doc} has no section "${heading}"`);
  const next = text.indexOf("\n### ", start + heading.length);
  const section = text.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Parses a multi-document YAML text. */
export function manifests(yaml: string): Manifest[] {
  return parseAllDocuments(yaml).map((d) => d.toJS() as Manifest);
}

/** A copy of the documented roles with one right taken away, and which right it was. */
export interface WithoutOneRight {
  readonly missing: string;
  /** The Role or ClusterRole as it would be applied without that right. */
  readonly role: Manifest;
  /** The role as documented, to put back. */
  readonly original: Manifest;
}

/**
 * Every way of taking one right away from the documented Roles and ClusterRoles: one resource
 * of one rule at a time (a rule left without resources is dropped).
 */
export function eachRightRemoved(docs: Manifest[]): WithoutOneRight[] {
  const variants: WithoutOneRight[] = [];
  for (const role of docs.filter((d) => d.kind === "Role" || d.kind === "ClusterRole")) {
    const rules = role.rules as PolicyRule[];
    rules.forEach((rule, r) => {
      for (const resource of rule.resources ?? []) {
        const fewer = { ...rule, resources: rule.resources!.filter((x) => x !== resource) };
        const kept = fewer.resources.length ? [fewer] : [];
        const where = role.metadata.namespace ? `${role.metadata.namespace}/` : "";
        variants.push({
          missing: `${role.kind} ${where}${role.metadata.name}: ${rule.verbs.join(",")} ${resource}`,
          role: { ...role, rules: [...rules.slice(0, r), ...kept, ...rules.slice(r + 1)] },
          original: role,
        });
      }
    });
  }
  return variants;
}

/** A manifest as YAML, for `kubectl apply -f -`. */
export function toYaml(manifest: Manifest): string {
  return stringify(manifest);
}
