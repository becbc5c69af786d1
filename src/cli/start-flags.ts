/**
 * The flags of `platform start` (also the keys of its --config file) and how they become the
 * server's configuration. Nothing of the server is imported here but its types: every other
 * command starts without the server's modules.
 */
import type { Command } from "commander";
import type { ServerConfig } from "../app/config.js";
import { oidcConfigOf } from "./oidc-options.js";
import { switchValue } from "./server-config-file.js";

/** `--shutdown-grace-period`'s default: app/config.ts's DEFAULT_SHUTDOWN_GRACE_SECONDS (not imported: no server module here). */
export const DEFAULT_SHUTDOWN_GRACE_SECONDS = 20;

/** `--worker-start-timeout`'s default: app/worker-restarts.ts's DEFAULT_WORKER_START_TIMEOUT_SECONDS. */
const DEFAULT_WORKER_START_TIMEOUT_SECONDS = 120;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Where the server listens and keeps its store, certificates and keys. */
export function addServingFlags(start: Command): Command {
  return start
    .option("--data-dir <dir>", "where the database, certificates and keys live", "./data")
    .option("--listen <host:port>", "address to listen on", "0.0.0.0:8443")
    .option("--storage <url>", "storage: sqlite:PATH (default <data-dir>/platform.db) or etcd://host:2379[,host:2379]")
    .option("--tls-cert-file <file>", "serving certificate (PEM); generated in the data dir when absent")
    .option("--tls-private-key-file <file>", "private key of --tls-cert-file (PEM)")
    .option(
      "--encryption-key-file <file>",
      "keys encrypting shared secret data at rest (default <data-dir>/encryption-keys.json)",
    );
}

/** What the server writes about itself: logs, metrics and the audit log. */
export function addObservabilityFlags(start: Command): Command {
  return start
    .option(
      "--log-level <level>",
      "fatal, error, warn, info (one access line per request), debug; JSON on stderr",
      "warn",
    )
    .option(
      "--metrics-listen <host:port>",
      "also serve GET /metrics over plain HTTP here, unauthenticated (e.g. 127.0.0.1:9090)",
    )
    .option("--audit-log <file>", "write an audit log (audit.k8s.io/v1 Event JSON lines) to this file, or - for stdout")
    .option("--audit-policy-file <file>", "kube audit Policy deciding each request's level (default: Metadata for all)")
    .option("--audit-log-maxsize <MB>", "rotate the audit log when it reaches this many megabytes (default: never)")
    .option("--audit-log-maxbackup <n>", "rotated audit log files to keep (default 10)");
}

/** Limits on what clients may do, and whom the server trusts to say who a client is. */
export function addTrustFlags(start: Command): Command {
  return start
    .option("--max-key-ttl <seconds>", "longest access key ttl anyone can create (default: no limit)")
    .option(
      "--trusted-proxies <cidrs>",
      "proxies/load balancers whose X-Forwarded-For gives the client address, as CIDR[,CIDR...] (default: none)",
    )
    .option(
      "--allow-local-endpoints",
      "let endpoints users set (a virtual cluster's, a cluster's agent or kubeconfig server) be loopback, link-local or this host's own addresses; for tests and single-machine setups (default: refused)",
    );
}

/** How the server's processes run and stop. */
export function addProcessFlags(start: Command): Command {
  return start
    .option(
      "--shutdown-grace-period <seconds>",
      `on SIGTERM, how long requests in flight may take to finish before they are cut off (default ${DEFAULT_SHUTDOWN_GRACE_SECONDS})`,
    )
    .option(
      "--shutdown-delay <seconds>",
      "on SIGTERM, how long to go on serving with /readyz failing before the shutdown begins, for load balancers to stop sending traffic (default 0)",
    )
    .option(
      "--workers <n>",
      "server processes sharing --listen, each a replica (etcd storage only); auto: one per CPU",
      "1",
    )
    .option(
      "--worker-start-timeout <seconds>",
      `with --workers: a worker that has not served this long after its start is killed and counts as a failed start (default ${DEFAULT_WORKER_START_TIMEOUT_SECONDS})`,
    );
}

/** Parses `HOST:PORT` (IPv6 as `[::1]:8443`). */
export function parseListen(value: string, flag = "--listen"): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  if (!m) throw new Error(`${flag} must be HOST:PORT, got "${value}"`);
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`${flag} port out of range: ${port}`);
  return { host: m[1] ?? m[2] ?? "0.0.0.0", port };
}

export function positiveSeconds(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} must be a positive number of seconds, got "${value}"`);
  return n;
}

function wholeNumber(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} must be a whole number, got "${value}"`);
  return n;
}

/** The server's configuration from the parsed flags (a --config file's values already among them). */
export function serverConfigOf(opts: Record<string, string | undefined>): ServerConfig {
  const { host, port } = parseListen(opts.listen ?? "0.0.0.0:8443");
  if (!LOG_LEVELS.includes(opts.logLevel ?? "warn")) {
    throw new Error(`--log-level must be one of ${LOG_LEVELS.join(", ")}, got "${opts.logLevel}"`);
  }
  if (!!opts.tlsCertFile !== !!opts.tlsPrivateKeyFile) {
    throw new Error("--tls-cert-file and --tls-private-key-file go together");
  }
  const optional = <T>(value: string | undefined, parse: (value: string) => T): T | undefined =>
    value ? parse(value) : undefined;
  return {
    dataDir: opts.dataDir ?? "./data",
    host,
    port,
    storage: opts.storage,
    tlsCertFile: opts.tlsCertFile,
    tlsKeyFile: opts.tlsPrivateKeyFile,
    encryptionKeyFile: opts.encryptionKeyFile,
    logLevel: opts.logLevel,
    shutdownGracePeriodSeconds: optional(opts.shutdownGracePeriod, (v) => wholeNumber(v, "--shutdown-grace-period")),
    shutdownDelaySeconds: optional(opts.shutdownDelay, (v) => wholeNumber(v, "--shutdown-delay")),
    maxKeyTtlSeconds: optional(opts.maxKeyTtl, (v) => positiveSeconds(v, "--max-key-ttl")),
    auditLog: opts.auditLog,
    oidc: oidcConfigOf(opts),
    auditPolicyFile: opts.auditPolicyFile,
    auditLogMaxSizeMb: optional(opts.auditLogMaxsize, (v) => wholeNumber(v, "--audit-log-maxsize")),
    auditLogMaxBackup: optional(opts.auditLogMaxbackup, (v) => wholeNumber(v, "--audit-log-maxbackup")),
    metricsListen: optional(opts.metricsListen, (v) => parseListen(v, "--metrics-listen")),
    trustedProxies: opts.trustedProxies?.split(","),
    allowLocalEndpoints: switchValue(opts.allowLocalEndpoints, "--allow-local-endpoints"),
  };
}
