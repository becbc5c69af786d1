import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { API_PREFIX } from "../api/object.js";
import { type RunningServer, type ServerConfig, startServer } from "../app/start-server.js";
import { rememberTls, seedTls } from "./tls-seed.js";

/** The management API path of the group, for building request paths in tests. */
export const GROUP_PATH = `${API_PREFIX}/apis/management.platform/v1`;

export interface TestResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body's bytes (for bodies that are not text: protobuf). */
  body: Buffer;
  /** The body parsed as JSON (undefined when it is not JSON). */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response fields
  json: any;
}

export interface TestServer extends RunningServer {
  dataDir: string;
  adminKey: string;
  /** An HTTPS request to the server, trusting its CA; `token` defaults to the admin key (null: none). */
  request(
    method: string,
    path: string,
    options?: {
      body?: unknown;
      contentType?: string;
      token?: string | null;
      headers?: Record<string, string>;
      raw?: string | Buffer;
    },
  ): Promise<TestResponse>;
  /** Writes a kubeconfig for `token` (default admin) and returns its path. */
  kubeconfig(token?: string): string;
  /** Stops the server and removes its data dir (unless keepData). */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * A replica on a shared etcd: a test server whose leader election takes seconds, not the
 * production lease, so a test sees a takeover (or one leader of two) without waiting for it.
 */
export function startReplica(etcdUrl: string, bootstrapKey: string): Promise<TestServer> {
  return startTestServer({ storage: etcdUrl, bootstrapKey, leaderElection: { ttlSeconds: 2, retryMs: 100 } });
}

/** Starts a real server on 127.0.0.1 with a free port and a fresh data dir. */
export async function startTestServer(config: Partial<ServerConfig> = {}): Promise<TestServer> {
  const dataDir = config.dataDir ?? mkdtempSync(join(tmpdir(), "platform-test-"));
  // A fresh data dir gets the run's TLS files (tls-seed.ts); one given is the test's own.
  const makesTls = config.tlsCertFile === undefined;
  const seeded = config.dataDir === undefined && makesTls && seedTls(dataDir);
  const server = await startServer({
    host: "127.0.0.1",
    port: 0,
    logLevel: "error",
    bookmarkIntervalMs: 1000,
    ...config,
    dataDir,
  });
  if (!server.adminKey) throw new Error("test server has no admin key");
  if (config.dataDir === undefined && makesTls && !seeded) rememberTls(dataDir);
  const adminKey = server.adminKey;
  let kubeconfigs = 0;
  return Object.assign(server, {
    dataDir,
    adminKey,
    request(method: string, path: string, options: Parameters<TestServer["request"]>[2] = {}) {
      return doRequest(server, adminKey, method, path, options);
    },
    kubeconfig(token = adminKey) {
      const file = join(dataDir, `kubeconfig-${++kubeconfigs}.yaml`);
      const cfg = {
        apiVersion: "v1",
        kind: "Config",
        clusters: [
          {
            name: "t",
            cluster: {
              server: `${server.url}${API_PREFIX}`,
              "certificate-authority-data": Buffer.from(server.caPem ?? "").toString("base64"),
            },
          },
        ],
        users: [{ name: "t", user: { token } }],
        contexts: [{ name: "t", context: { cluster: "t", user: "t" } }],
        "current-context": "t",
      };
      writeFileSync(file, stringify(cfg), { mode: 0o600 });
      return file;
    },
    async stop(options: { keepData?: boolean } = {}) {
      await server.close();
      if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  }) as TestServer;
}

function doRequest(
  server: RunningServer,
  adminKey: string,
  method: string,
  path: string,
  options: NonNullable<Parameters<TestServer["request"]>[2]>,
): Promise<TestResponse> {
  const headers: Record<string, string> = { accept: "application/json", ...(options.headers ?? {}) };
  const token = options.token === undefined ? adminKey : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let payload: string | Buffer | undefined = options.raw;
  if (options.body !== undefined) {
    const ct = options.contentType ?? "application/json";
    headers["content-type"] = ct;
    payload =
      ct.includes("yaml") && typeof options.body !== "string"
        ? stringify(options.body)
        : typeof options.body === "string"
          ? options.body
          : JSON.stringify(options.body);
  } else if (options.raw !== undefined && options.contentType) {
    headers["content-type"] = options.contentType;
  }
  // Node sends DELETE bodies neither chunked nor with a length unless told: say how long it is.
  if (payload !== undefined) headers["content-length"] = String(Buffer.byteLength(payload));
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method, headers, ca: server.caPem }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        const text = body.toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body, json });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * A User `name` with no role and an access key of its own (`<name>-key`, with `scope` when
 * given): the key, for requests as that user.
 */
export async function userWithKey(server: TestServer, name: string, scope?: unknown): Promise<string> {
  const user = await server.request("POST", `${GROUP_PATH}/users`, { body: { metadata: { name } } });
  if (user.status !== 201) throw new Error(`creating user ${name}: ${user.status} ${user.text}`);
  return scopedKey(server, name, `${name}-key`, scope);
}

/** Another access key `keyName` of existing User `user` (with `scope` when given): the key. */
export async function scopedKey(server: TestServer, user: string, keyName: string, scope?: unknown): Promise<string> {
  const spec = scope === undefined ? { user } : { user, scope };
  const key = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
    body: { metadata: { name: keyName }, spec },
  });
  if (key.status !== 201) throw new Error(`creating key ${keyName}: ${key.status} ${key.text}`);
  return key.json.spec.key as string;
}
