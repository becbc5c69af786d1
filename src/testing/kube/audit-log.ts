/**
 * kube-apiserver's own audit log, for tests that must know who wrote what on the cluster (which
 * user created, patched or deleted an object, and what it answered), as the API server saw it
 * rather than as the platform says it did. Only writes are logged, and lists (each pass of a
 * controller that keeps objects on the cluster lists them, the project secrets' fill lists a
 * space's Secrets: a test counts passes by them), and the reads of a Namespace by the platform's
 * ServiceAccounts (namespace `platform`, as tests connect the platform: a pass reads its
 * namespace, a test counts those reads), at the Metadata level (no bodies: a Secret's data never
 * reaches the log), each once, when its answer is complete.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
  - level: Metadata
    verbs: ["create", "update", "patch", "delete", "deletecollection"]
  - level: Metadata
    verbs: ["list"]
  - level: Metadata
    verbs: ["get"]
    userGroups: ["system:serviceaccounts:platform"]
    resources:
      - group: ""
        resources: ["namespaces"]
  - level: None
`;

/** One write as the API server records it (the fields tests read; audit.k8s.io/v1 Event). */
export interface KubeAuditEvent {
  verb: string;
  user: { username: string; groups?: string[] };
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string; subresource?: string };
  /** 201 for a create, including a server-side apply that created its object. */
  responseStatus?: { code?: number };
  requestReceivedTimestamp?: string;
}

/** Writes the policy into `dir` and returns kube-apiserver's flags that log to `logPath` with it. */
export async function auditLogFlags(dir: string, logPath: string): Promise<string[]> {
  const policyPath = join(dir, "audit-policy.yaml");
  await writeFile(policyPath, POLICY);
  // The log backend's default mode is blocking: each event is written as its request completes,
  // not buffered for later.
  return [`--audit-policy-file=${policyPath}`, `--audit-log-path=${logPath}`, "--audit-log-format=json"];
}

/** The events in the log at `logPath`, oldest first (none when nothing was written yet). */
export async function readAuditLog(logPath: string): Promise<KubeAuditEvent[]> {
  let text: string;
  try {
    text = await readFile(logPath, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as KubeAuditEvent);
}
