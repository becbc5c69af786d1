import type { FastifyInstance } from "fastify";
import type { AuditOptions } from "../audit/audit-log.js";
import type { ControllerManager } from "../controllers/controller-manager.js";
import type { PlatformEvents } from "../events/platform-events.js";
import type { ClusterGateway } from "../gateway/cluster-gateway.js";
import type { KindList } from "../kinds/index.js";
import type { OperationsConfig } from "../metrics/server-hooks.js";
import type { Registry } from "../registry/registry.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import type { StoredBytesPrecheck } from "../registry/stored-bytes-precheck.js";
import type { FinishBrowserLogin } from "../sso/browser-login.js";
import type { OidcConfig } from "../sso/config.js";
import type { SingleSignOn } from "../sso/sso.js";
import type { Storage } from "../storage/interface.js";

/** How long a stopping server lets requests in flight finish (`--shutdown-grace-period`). */
export const DEFAULT_SHUTDOWN_GRACE_SECONDS = 20;

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
  /** How long a GET, list or watch at a resourceVersion ahead of the store waits before 504 (default 3 s, as kube). */
  freshnessWaitMs?: number;
  /** Longest lifetime of a direct cluster endpoint token. */
  maxTokenTtlSeconds?: number;
  /** `--max-key-ttl`: longest access key ttl (seconds) anyone can create; undefined: no limit. */
  maxKeyTtlSeconds?: number;
  /** `--audit-log`: JSON lines to this file, or `-` for stdout. */
  auditLog?: string;
  /**
   * `--trusted-proxies`: CIDR ranges of the proxies in front of the server, whose X-Forwarded-For
   * gives the client's address (rate limits; not the audit's sourceIPs); default none (server/trusted-proxies.ts).
   */
  trustedProxies?: string[];
  /**
   * `--allow-local-endpoints`: endpoints users set (a virtual cluster's, a cluster's agent, the
   * servers of clusters' kubeconfigs) may be loopback, link-local or this host's own addresses
   * (default: refused; docs/security.md). For tests and single-machine setups.
   */
  allowLocalEndpoints?: boolean;
  /** Failed authentications per source address per minute before 429 (default 30). */
  maxFailedAuthPerMinute?: number;
  logLevel?: string;
  /** Where the JSON log lines go (default: stderr); tests read a server's lines from a stream of their own. */
  logDestination?: NodeJS.WritableStream;
  /** `--shutdown-grace-period`: seconds a stopping server lets requests in flight finish (default 20). */
  shutdownGracePeriodSeconds?: number;
  /**
   * `--shutdown-delay`: seconds a stopping server keeps serving normally, /readyz failing, before
   * it stops accepting connections (default 0): time for load balancers to take it out of rotation.
   */
  shutdownDelaySeconds?: number;
  /** How often connected clusters are checked again (default one minute). */
  clusterCheckIntervalMs?: number;
  /**
   * Sleep mode in the gateway (docs/gateway.md, "Sleeping virtual clusters"): how often activity
   * is written, how long a request waits for a sleeping virtual cluster (defaults in
   * src/gateway/cluster-gateway.ts, DEFAULT_SLEEP_MODE).
   */
  sleepMode?: { activityFlushMs?: number; wakeLimitMs?: number };
  /** etcd leader election of the controllers: lease TTL (default 5 s) and retry period (default 500 ms). */
  leaderElection?: { ttlSeconds?: number; retryMs?: number };
  /** How long Events are kept after they last happened, and how often expired ones are removed (default 1 h, 1 min). */
  events?: { ttlMs?: number; intervalMs?: number };
  /** Sign-in with an OpenID Connect identity provider (`--oidc-*`); absent: SSO is off. */
  oidc?: OidcConfig;
  /** The last step of a browser sign-in (default: a web console session, then the console). */
  finishBrowserLogin?: FinishBrowserLogin;
  /** The clock of the sign-in rate limits (default Date.now; tests step it). */
  signInClock?: () => number;
  /** The kinds served (default: the registration list, kinds/index.ts); a test adds one of its own. */
  kinds?: KindList;
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
  /** The replica's informers, one per kind (shared by the authorizer, the gateway and the controllers). */
  informers: SharedInformers;
  storage: Storage;
  /** The background check of stored bytes after each watch cache fill (registry/stored-bytes-precheck.ts). */
  storedBytesPrecheck: StoredBytesPrecheck;
  /** Background controllers; they run only while this replica is the elected leader. */
  controllers: ControllerManager;
  /** Single sign-on, when configured. */
  sso?: SingleSignOn;
  /** The cluster gateway (src/gateway). */
  gateway: ClusterGateway;
  /** The platform's core v1 Events (src/events). */
  events: PlatformEvents;
  app: FastifyInstance;
  /**
   * Stops the server (docs/deployment.md, "Stopping a server"): /readyz fails at once; after
   * `shutdownDelaySeconds` of serving as usual, `draining` is called and the drain begins.
   */
  close(hooks?: { draining?: () => void }): Promise<void>;
}
