import type { KubeObject } from "./types";

/* What an access key page and list say about a key, from its spec and status. */

interface KeyScope {
  projects?: Array<{ project?: string }>;
  virtualClusters?: Array<{ project?: string; virtualCluster?: string }>;
  spaces?: Array<{ project?: string; space?: string }>;
  rules?: unknown[];
  allowPlatformCli?: boolean;
}

/** When the key stops working: its ttl counted from creation, or from its last use (ttlAfterLastActivity). */
export function expiryOf(key: KubeObject): string {
  const ttl = Number(key.spec?.ttl ?? 0);
  if (!ttl) return "never";
  const from = key.spec?.ttlAfterLastActivity
    ? (key.status?.lastActivity ?? key.metadata.creationTimestamp)
    : key.metadata.creationTimestamp;
  if (!from) return `${ttl} s after creation`;
  const at = new Date(Date.parse(from) + ttl * 1000).toISOString();
  return `${at.replace("T", " ").replace(/\.\d+Z$/, " UTC")}${key.spec?.ttlAfterLastActivity ? " (moves on with each use)" : ""}`;
}

/** What the key reaches, in words. */
export function scopeOf(key: KubeObject): string {
  const s = key.spec?.scope as KeyScope | undefined;
  const parts = [
    ...(s?.projects ?? []).map((p) => `project ${p.project}`),
    ...(s?.virtualClusters ?? []).map((v) => `virtual cluster ${v.virtualCluster} of project ${v.project}`),
    ...(s?.spaces ?? []).map((v) => `space ${v.space} of project ${v.project}`),
    ...(s?.rules?.length ? [`${s.rules.length} rule${s.rules.length === 1 ? "" : "s"}`] : []),
  ];
  if (parts.length === 0) return "everything its owner may do";
  return `${parts.join(", ")}${s?.allowPlatformCli ? ", and the platform CLI" : ""}`;
}
