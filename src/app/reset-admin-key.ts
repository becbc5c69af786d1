/**
 * `platform admin reset-key`: a lost admin key recovered offline, straight on the store.
 *
 * What it does, and why:
 * - It owns the store while it works (a SQLite store is refused while a server runs on it:
 *   the server holds the store's lock, see storage/sqlite/store-lock.ts). An etcd store is shared
 *   by design; servers running on it see the new key through their watches.
 * - The admin user is made usable again: created if it was deleted, re-enabled, and given back
 *   the admin cluster role if it lost it.
 * - The key the data dir held (`admin-bootstrap`, or the key of an earlier reset) is deleted: the
 *   file that held it is overwritten, and a lost key may also be a leaked one. Other keys of
 *   the admin user were created on purpose (automation, CI) and are kept and listed, unless
 *   `revokeAll` asks to delete them too.
 * - The new key is created through the registry like every key, so it is stored hashed.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "yaml";
import type { KubeObject } from "../api/object.js";
import { API_PREFIX, API_VERSION, GROUP, VERSION } from "../api/object.js";
import { AuditLog, type AuditOptions } from "../audit/audit-log.js";
import {
  ADMIN_BOOTSTRAP_KEY_NAME,
  ADMIN_CLUSTER_ROLE,
  ADMIN_KEY_FILE,
  ADMIN_KUBECONFIG_FILE,
  ADMIN_USER,
  adminKeyObject,
  adminUserObject,
  writeAdminKubeconfig,
} from "../auth/bootstrap.js";
import { ensureDir, writeFileAtomic } from "../crypto/files.js";
import { eventResource } from "../events/event-type.js";
import { createPlatformEvents } from "../events/platform-events.js";
import { allResourceTypes } from "../kinds/index.js";
import { AdmissionChain } from "../registry/admission.js";
import { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import { SharedInformers } from "../registry/shared-informers.js";
import { openStorage } from "../storage/factory.js";

/** Marks the keys a reset created: the next reset revokes them like the bootstrap key. */
export const RESET_KEY_LABEL = "management.platform/admin-reset-key";
const FIELD_MANAGER = "platform-admin-reset-key";

export interface ResetKeyOptions extends AuditOptions {
  dataDir: string;
  /** Storage URL as `platform start --storage` (default `sqlite:<data-dir>/platform.db`). */
  storage?: string;
  /** Server URL for the kubeconfig (default: the one of the data dir's admin kubeconfig). */
  server?: string;
  /** `--audit-log FILE`: where the reset is recorded. */
  auditLog?: string;
  /** Also delete every other key of the admin user. */
  revokeAll?: boolean;
}

export interface ResetKeyResult {
  keyName: string;
  keyFile: string;
  kubeconfig: string;
  revoked: string[];
  kept: string[];
  /** What was repaired on the admin user (created, enabled, role given back). */
  userRepairs: string[];
  auditLog?: string;
}

/** Runs the reset; throws a clear error when the store is in use or absent. */
export async function resetAdminKey(options: ResetKeyOptions): Promise<ResetKeyResult> {
  const dataDir = resolve(options.dataDir);
  const url = options.storage ?? `sqlite:${resolve(dataDir, "platform.db")}`;
  assertStoreExists(url);
  // With etcd the data dir may be new: it only receives the key and kubeconfig files.
  ensureDir(dataDir);
  const storage = await openStorage(url, { exclusive: true });
  try {
    const registry = offlineRegistry(storage);
    const { user, repairs } = await ensureAdminUser(registry);
    const { revoked, kept } = await revokeOldKeys(registry, options.revokeAll === true);
    const keyName = `admin-reset-${new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14)}`;
    const created = await registry
      .store("ownedaccesskeys")
      .create(
        systemContext(),
        undefined,
        withLabel(adminKeyObject(keyName, user, "Admin key written by platform admin reset-key")),
        { dryRun: false, fieldManager: FIELD_MANAGER, fieldValidation: "Strict" },
      );
    const key = String(created.spec?.key);
    const keyFile = resolve(dataDir, ADMIN_KEY_FILE);
    writeFileAtomic(keyFile, `${key}\n`, 0o600);
    const kubeconfig = writeResetKubeconfig(dataDir, options.server, key);
    if (options.auditLog) await recordInAuditLog(options, created, revoked);
    // Also an Event on the admin user, for whoever looks with kubectl events in the next hour.
    const core = new Registry(storage, [eventResource], new AdmissionChain([]));
    const events = createPlatformEvents(core.store("events"), new SharedInformers(registry), (err) =>
      process.emitWarning(`event not written: ${err}`),
    );
    events.recorder.record(user, "Warning", "AdminKeyReset", resetMessage(keyName, revoked));
    await events.recorder.flush();
    return { keyName, keyFile, kubeconfig, revoked, kept, userRepairs: repairs, auditLog: options.auditLog };
  } finally {
    await storage.close();
  }
}

/** A SQLite path that does not exist would be created empty: a wrong --data-dir, not a reset. */
function assertStoreExists(url: string): void {
  if (/^etcds?:/i.test(url)) return;
  const path = url.replace(/^sqlite:(\/\/)?/, "");
  if (!existsSync(path)) {
    throw new Error(`no platform database at ${path}: is --data-dir (or --storage) the server's?`);
  }
}

/**
 * The registry over the store, for the admin user and its keys only: nothing here reads or
 * writes encrypted data or issues tokens, so those parts refuse.
 */
function offlineRegistry(storage: Awaited<ReturnType<typeof openStorage>>): Registry {
  const refuse = (): never => {
    throw new Error("platform admin reset-key does not read encrypted data or issue tokens");
  };
  const kinds = allResourceTypes({
    cipher: { encrypt: refuse, decrypt: refuse },
    secretDataReaders: { mayReadData: () => false },
    tokenIssuer: { issue: refuse, maxTtlSeconds: 0 },
  });
  return new Registry(storage, kinds, new AdmissionChain([]));
}

async function ensureAdminUser(registry: Registry): Promise<{ user: KubeObject; repairs: string[] }> {
  const users = registry.store("users");
  const options = { dryRun: false, fieldManager: FIELD_MANAGER, fieldValidation: "Strict" as const };
  const current = await users.read(undefined, ADMIN_USER);
  if (!current) {
    return { user: await users.create(systemContext(), undefined, adminUserObject(), options), repairs: ["created"] };
  }
  const spec = { ...(current.spec ?? {}) };
  const repairs: string[] = [];
  if (spec.disabled === true) {
    spec.disabled = false;
    repairs.push("enabled");
  }
  const roles = Array.isArray(spec.clusterRoles) ? (spec.clusterRoles as Array<{ name?: string }>) : [];
  if (!roles.some((r) => r.name === ADMIN_CLUSTER_ROLE)) {
    spec.clusterRoles = [...roles, { name: ADMIN_CLUSTER_ROLE }];
    repairs.push(`cluster role ${ADMIN_CLUSTER_ROLE} given back`);
  }
  if (repairs.length === 0) return { user: current, repairs };
  const user = await users.update(systemContext(), undefined, ADMIN_USER, { ...current, spec }, options);
  return { user, repairs };
}

async function revokeOldKeys(registry: Registry, all: boolean): Promise<{ revoked: string[]; kept: string[] }> {
  const keys = registry.store("ownedaccesskeys");
  const list = await keys.list(systemContext(), undefined, {});
  const revoked: string[] = [];
  const kept: string[] = [];
  for (const key of list.items) {
    if (key.spec?.user !== ADMIN_USER) continue;
    const name = key.metadata.name ?? "";
    const held = name === ADMIN_BOOTSTRAP_KEY_NAME || key.metadata.labels?.[RESET_KEY_LABEL] === "true";
    if (!held && !all) {
      kept.push(name);
      continue;
    }
    await keys.delete(systemContext(), undefined, name, { dryRun: false });
    revoked.push(name);
  }
  return { revoked, kept };
}

function withLabel(obj: KubeObject): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, labels: { [RESET_KEY_LABEL]: "true" } } };
}

/**
 * The admin kubeconfig where `platform start` writes it: the server address and CA of the one
 * already there (the server rewrites it on its next start), or `server` and the data dir's CA.
 */
function writeResetKubeconfig(dataDir: string, server: string | undefined, key: string): string {
  const file = resolve(dataDir, ADMIN_KUBECONFIG_FILE);
  const previous = existsSync(file) ? previousCluster(readFileSync(file, "utf8")) : {};
  const caFile = resolve(dataDir, "ca.crt");
  const caPem = previous.caPem ?? (existsSync(caFile) ? readFileSync(caFile, "utf8") : undefined);
  const url = server ?? previous.server ?? "https://127.0.0.1:8443";
  return writeAdminKubeconfig(dataDir, url.replace(/\/+$/, ""), caPem, key);
}

function previousCluster(text: string): { server?: string; caPem?: string } {
  try {
    const doc = parse(text) as { clusters?: Array<{ cluster?: Record<string, string> }> };
    const cluster = doc?.clusters?.[0]?.cluster ?? {};
    const server = cluster.server?.endsWith(API_PREFIX) ? cluster.server.slice(0, -API_PREFIX.length) : undefined;
    const ca = cluster["certificate-authority-data"];
    return { server, caPem: ca ? Buffer.from(ca, "base64").toString("utf8") : undefined };
  } catch {
    return {}; // unreadable: fall back to the defaults
  }
}

/**
 * One `audit.k8s.io/v1` Event line, as the server writes for a key created over the API: the
 * creation of the new key, by the local operator, with what was revoked.
 */
async function recordInAuditLog(options: ResetKeyOptions, key: KubeObject, revoked: string[]): Promise<void> {
  const log = new AuditLog(options.auditLog!, options);
  const now = new Date().toISOString();
  const name = key.metadata.name ?? "";
  log.write({
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    auditID: randomUUID(),
    stage: "ResponseComplete",
    requestURI: `${API_PREFIX}/apis/${API_VERSION}/ownedaccesskeys/${name}`,
    verb: "create",
    user: { username: "system:admin-reset-key", groups: [], extra: { "os-user": [osUser()] } },
    sourceIPs: [],
    userAgent: "platform admin reset-key",
    objectRef: { resource: "ownedaccesskeys", name, apiGroup: GROUP, apiVersion: VERSION },
    responseStatus: { metadata: {}, code: 201 },
    requestReceivedTimestamp: now,
    stageTimestamp: now,
    annotations: {
      "management.platform/admin-reset-key": resetMessage(name, revoked),
    },
  });
  await log.close();
}

function resetMessage(keyName: string, revoked: string[]): string {
  return `platform admin reset-key wrote new key ${keyName} for user ${ADMIN_USER}; revoked: ${revoked.join(",") || "none"}`;
}

function osUser(): string {
  return process.env.SUDO_USER ?? process.env.USER ?? process.env.LOGNAME ?? String(process.getuid?.() ?? "");
}

/** The settings of `platform start --config FILE` that reset-key needs (the others are ignored). */
export function resetSettingsFromServerConfig(file: string): Partial<Record<string, string>> {
  const doc = parse(readFileSync(file, "utf8")) as Record<string, unknown> | null;
  const out: Partial<Record<string, string>> = {};
  for (const k of ["data-dir", "storage", "audit-log", "audit-log-maxsize", "audit-log-maxbackup"]) {
    const v = doc?.[k];
    if (typeof v === "string" || typeof v === "number") out[k] = String(v);
  }
  return out;
}
