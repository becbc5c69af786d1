import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { ApiError } from "../api/errors.js";
import { API_PREFIX, API_VERSION, type KubeObject } from "../api/object.js";
import { writeFileAtomic } from "../crypto/files.js";
import { MIN_GIVEN_KEY_LENGTH } from "../kinds/owned-access-key/owned-access-key.js";
import type { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";
import { perServerName } from "../support/kubeconfig-names.js";

export const ADMIN_USER = "admin";
export const ADMIN_KEY_FILE = "admin-access-key";
export const ADMIN_KUBECONFIG_FILE = "admin.kubeconfig";
export const ADMIN_BOOTSTRAP_KEY_NAME = "admin-bootstrap";
/** The cluster role that makes `admin` the administrator. */
export const ADMIN_CLUSTER_ROLE = "platform-management-admin";

/** The `admin` user as the first start creates it. */
export function adminUserObject(): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: "User",
    metadata: { name: ADMIN_USER },
    spec: { displayName: "Administrator", username: ADMIN_USER, clusterRoles: [{ name: ADMIN_CLUSTER_ROLE }] },
  };
}

/** An access key of the admin user, owned by it (generated unless `key` is given). */
export function adminKeyObject(name: string, user: KubeObject, displayName: string, key?: string): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: "OwnedAccessKey",
    metadata: {
      name,
      ownerReferences: [{ apiVersion: API_VERSION, kind: "User", name: ADMIN_USER, uid: user.metadata.uid! }],
    },
    spec: { user: ADMIN_USER, displayName, type: "User", ...(key ? { key } : {}) },
  };
}

/**
 * First start with an empty store: user `admin` with the admin cluster role and an access
 * key (PLATFORM_BOOTSTRAP_KEY, or generated), written to <data-dir>/admin-access-key.
 * Returns the key when it is known (created now, or kept in the data dir).
 */
export async function bootstrapAdmin(
  registry: Registry,
  dataDir: string,
  bootstrapKey?: string,
): Promise<string | undefined> {
  checkBootstrapKey(bootstrapKey);
  const keyFile = join(dataDir, ADMIN_KEY_FILE);
  const known = (): string | undefined => (existsSync(keyFile) ? readFileSync(keyFile, "utf8").trim() : undefined);
  // "Empty" means no object at all: an etcd store's revision is never 0 (and leader election
  // writes keys of its own), so the revision cannot tell.
  // Another replica's data dir has the generated key; a PLATFORM_BOOTSTRAP_KEY is known to all.
  if (!(await registry.isEmpty())) return known() ?? bootstrapKey;
  try {
    return await createAdmin(registry, keyFile, bootstrapKey);
  } catch (err) {
    // Another replica on the same store bootstrapped at the same moment: its admin stands.
    if (err instanceof ApiError && err.code === 409) return known() ?? bootstrapKey;
    throw err;
  }
}

async function createAdmin(registry: Registry, keyFile: string, bootstrapKey: string | undefined): Promise<string> {
  const ctx = systemContext();
  const options = { dryRun: false, fieldManager: "platform-bootstrap", fieldValidation: "Strict" as const };
  const user = await registry.store("users").create(ctx, undefined, adminUserObject(), options);
  const key = await registry
    .store("ownedaccesskeys")
    .create(
      ctx,
      undefined,
      adminKeyObject(ADMIN_BOOTSTRAP_KEY_NAME, user, "Bootstrap key of the admin user", bootstrapKey),
      options,
    );
  const value = String(key.spec?.key);
  writeFileAtomic(keyFile, `${value}\n`, 0o600);
  return value;
}

/**
 * A kubeconfig for kubectl: the management API, the generated CA, the admin key as token. Its
 * cluster, user and context are all `platform-admin@HOST:PORT`, so merged with another server's
 * admin kubeconfig (or the contexts `platform use` writes) no entry is shared and each admin key
 * keeps going to its own server.
 */
export function writeAdminKubeconfig(
  dataDir: string,
  serverUrl: string,
  caPem: string | undefined,
  token: string,
): string {
  const file = join(dataDir, ADMIN_KUBECONFIG_FILE);
  const name = perServerName("platform-admin", serverUrl);
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name,
        cluster: {
          server: `${serverUrl}${API_PREFIX}`,
          ...(caPem ? { "certificate-authority-data": Buffer.from(caPem).toString("base64") } : {}),
        },
      },
    ],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    "current-context": name,
  };
  writeFileAtomic(file, stringify(config), 0o600);
  return file;
}

/** A given bootstrap key must be as long as any given access key; say which setting is wrong, before anything starts. */
function checkBootstrapKey(bootstrapKey: string | undefined): void {
  if (bootstrapKey === undefined || bootstrapKey === "") return;
  if (bootstrapKey.length < MIN_GIVEN_KEY_LENGTH) {
    throw new Error(
      `PLATFORM_BOOTSTRAP_KEY must be at least ${MIN_GIVEN_KEY_LENGTH} characters (it has ${bootstrapKey.length}); for example PLATFORM_BOOTSTRAP_KEY=$(openssl rand -hex 24)`,
    );
  }
}
