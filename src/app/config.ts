import type { FastifyInstance } from "fastify";
import type { AuditOptions } from "../audit/audit-log.js";
import type { ControllerManager } from "../controllers/controller-manager.js";
import type { OperationsConfig } from "../metrics/server-hooks.js";
import type { Registry } from "../registry/registry.js";
import type { Storage } from "../storage/interface.js";

export interface ServerConfig extends OperationsConfig, AuditOptions {
  dataDir: string;
  /** Host to listen on (default 0.0.0.0). */
  host?: string;
  /** Port (default 8443; 0 picks a free one). */
  port?: number;
  /** Storage URL: `sqlite:PATH` (default `<data-dir>/platform.db`) or `etcd://host:port[,…]`. */
  storage?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  encryptionKeyFile?: string;
  bootstrapKey?: string;
  bookmarkIntervalMs?: number;
  /** Longest lifetime of a direct cluster endpoint token. */
  maxTokenTtlSeconds?: number;
  /** `--max-key-ttl`: longest access key ttl (seconds) anyone can create; undefined: no limit. */
  maxKeyTtlSeconds?: number;
  /** `--audit-log`: JSON lines to this file, or `-` for stdout. */
  auditLog?: string;
  /** Failed authentications per source address per minute before 429 (default 30). */
  maxFailedAuthPerMinute?: number;
  logLevel?: string;
  /** How often connected clusters are checked again (default one minute). */
  clusterCheckIntervalMs?: number;
  /** etcd leader election of the controllers: lease TTL (default 5 s) and retry period (default 500 ms). */
  leaderElection?: { ttlSeconds?: number; retryMs?: number };
}

export interface RunningServer {
  /** `https://127.0.0.1:PORT` (or the listen host when it is not a wildcard). */
  url: string;
  port: number;
  caPem?: string;
  /** The admin key, when known (first start, or kept in the data dir). */
  adminKey?: string;
  adminKubeconfig?: string;
  registry: Registry;
  storage: Storage;
  /** Background controllers; they run only while this replica is the elected leader. */
  controllers: ControllerManager;
  app: FastifyInstance;
  close(): Promise<void>;
}
