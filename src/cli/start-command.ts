import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Command } from "commander";
import type { ServerConfig } from "../app/config.js";
import { addOidcOptions, oidcConfigOf } from "./oidc-options.js";
import { applyServerConfigFile, switchValue } from "./server-config-file.js";

/**
 * How long a stop signal waits, beyond the grace period given to requests in flight, for the
 * rest of the shutdown (controllers, the store) before exiting anyway.
 */
const SHUTDOWN_SLACK_SECONDS = 10;

/** `--shutdown-grace-period`'s default: app/config.ts's DEFAULT_SHUTDOWN_GRACE_SECONDS (not imported: no server module here). */
const DEFAULT_SHUTDOWN_GRACE_SECONDS = 20;

/** `--worker-start-timeout`'s default: app/worker-restarts.ts's DEFAULT_WORKER_START_TIMEOUT_SECONDS. */
const DEFAULT_WORKER_START_TIMEOUT_SECONDS = 120;

/** Parses `HOST:PORT` (IPv6 as `[::1]:8443`). */
export function parseListen(value: string, flag = "--listen"): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  if (!m) throw new Error(`${flag} must be HOST:PORT, got "${value}"`);
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`${flag} port out of range: ${port}`);
  return { host: m[1] ?? m[2] ?? "0.0.0.0", port };
}

function positiveSeconds(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${flag} must be a positive number of seconds, got "${value}"`);
  return n;
}

/** What the server listens on and where its files are, every path absolute. */
export function banner(
  server: { url: string; port: number; adminKubeconfig?: string; caPem?: string },
  host: string,
  dataDir: string,
): string {
  const all = host === "0.0.0.0" || host === "::" || host === "";
  const shown = host.includes(":") ? `[${host}]` : host;
  const lines = [
    `platform is listening on ${shown}:${server.port}${all ? " (every address of this machine)" : ""}`,
    `console:           ${server.url}/`,
    `API:               ${server.url}/kubernetes/management`,
    `data dir:          ${resolve(dataDir)}`,
    ...(server.caPem ? caLines(resolve(dataDir, "ca.crt"), server.url) : []),
    adminKeyLine(resolve(dataDir, "admin-access-key")),
  ];
  if (server.adminKubeconfig) {
    const kubeconfig = resolve(server.adminKubeconfig);
    lines.push(`admin kubeconfig:  ${kubeconfig}`, `try:  kubectl --kubeconfig ${kubeconfig} get users`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The server made its own certificate authority (no --tls-cert-file): nothing trusts it yet, so
 * say where it is and how to trust it, or the first curl or browser visit fails on TLS.
 */
function caLines(caFile: string, url: string): string[] {
  return [
    `CA certificate:    ${caFile}`,
    `  trust it:        curl --cacert ${caFile} ${url}/readyz`,
    `                   browsers, the OS: import it as a trusted authority (README.md, "Trusting the server's CA")`,
  ];
}

/**
 * Where the admin key is; a store that already had its admin (restored, migrated, another
 * replica's) makes none here, and a path to a file that is not there would send people looking.
 */
function adminKeyLine(file: string): string {
  if (existsSync(file)) return `admin access key:  ${file}`;
  return "admin access key:  none in this data dir (the store already had its admin: use its key, or `platform admin reset-key`)";
}

/** The single sign-on lines of the banner. */
function ssoNotes(server: {
  url: string;
  sso?: { settings: { issuerUrl: string; redirectBaseUrl?: string } };
}): string {
  if (!server.sso) return "";
  const base = server.sso.settings.redirectBaseUrl ?? server.url;
  let text = `single sign-on with ${server.sso.settings.issuerUrl}; redirect URI: ${base}/auth/oidc/callback\n`;
  if (!server.sso.settings.redirectBaseUrl) {
    text += "  (set --oidc-redirect-base-url if browsers reach this server at another address)\n";
  }
  return text;
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

function wholeNumber(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} must be a whole number, got "${value}"`);
  return n;
}

/**
 * A start that failed: main prints why (a worker's message naming it), and the process ends even
 * when the failed start left a handle open (a store's connections, a worker's channel to its
 * primary), which would otherwise keep it, and the primary waiting for it, alive for good.
 */
function failedStart(who: string) {
  return (err: unknown): never => {
    setTimeout(() => process.exit(1), 1000).unref();
    if (!who) throw err;
    throw new Error(`${who.trim()}: ${err instanceof Error ? err.message : String(err)}`);
  };
}

export function registerStartCommand(program: Command): void {
  const start = program
    .command("start")
    .description("Run the platform API server (embedded SQLite storage by default)")
    .option("--data-dir <dir>", "where the database, certificates and keys live", "./data")
    .option("--listen <host:port>", "address to listen on", "0.0.0.0:8443")
    .option("--storage <url>", "storage: sqlite:PATH (default <data-dir>/platform.db) or etcd://host:2379[,host:2379]")
    .option("--tls-cert-file <file>", "serving certificate (PEM); generated in the data dir when absent")
    .option("--tls-private-key-file <file>", "private key of --tls-cert-file (PEM)")
    .option(
      "--encryption-key-file <file>",
      "keys encrypting shared secret data at rest (default <data-dir>/encryption-keys.json)",
    )
    .option(
      "--log-level <level>",
      "fatal, error, warn, info (one access line per request), debug; JSON on stderr",
      "warn",
    )
    .option("--max-key-ttl <seconds>", "longest access key ttl anyone can create (default: no limit)")
    .option(
      "--metrics-listen <host:port>",
      "also serve GET /metrics over plain HTTP here, unauthenticated (e.g. 127.0.0.1:9090)",
    )
    .option("--audit-log <file>", "write an audit log (audit.k8s.io/v1 Event JSON lines) to this file, or - for stdout")
    .option("--audit-policy-file <file>", "kube audit Policy deciding each request's level (default: Metadata for all)")
    .option("--audit-log-maxsize <MB>", "rotate the audit log when it reaches this many megabytes (default: never)")
    .option("--audit-log-maxbackup <n>", "rotated audit log files to keep (default 10)")
    .option(
      "--shutdown-grace-period <seconds>",
      `on SIGTERM, how long requests in flight may take to finish before they are cut off (default ${DEFAULT_SHUTDOWN_GRACE_SECONDS})`,
    )
    .option(
      "--shutdown-delay <seconds>",
      "on SIGTERM, how long to go on serving with /readyz failing before the shutdown begins, for load balancers to stop sending traffic (default 0)",
    )
    .option(
      "--trusted-proxies <cidrs>",
      "proxies/load balancers whose X-Forwarded-For gives the client address, as CIDR[,CIDR...] (default: none)",
    )
    .option(
      "--allow-local-endpoints",
      "let endpoints users set (a virtual cluster's, a cluster's agent or kubeconfig server) be loopback, link-local or this host's own addresses; for tests and single-machine setups (default: refused)",
    )
    .option(
      "--workers <n>",
      "server processes sharing --listen, each a replica (etcd storage only); auto: one per CPU",
      "1",
    )
    .option(
      "--worker-start-timeout <seconds>",
      `with --workers: a worker that has not served this long after its start is killed and counts as a failed start (default ${DEFAULT_WORKER_START_TIMEOUT_SECONDS})`,
    )
    .option("--config <file>", "YAML file of these flags (keys without --; see docs/deployment.md); flags win");
  addOidcOptions(start)
    .addHelpText(
      "after",
      `
Examples:
  platform start
  platform start --data-dir /var/lib/platform --listen 127.0.0.1:9443
  PLATFORM_BOOTSTRAP_KEY=$(openssl rand -hex 24) platform start
  platform start --config /etc/platform/config.yaml
  platform start --storage etcd://127.0.0.1:2379 --workers auto
  platform start --oidc-issuer-url https://dex.example.com --oidc-client-id platform \\
    --oidc-client-secret-file /etc/platform/oidc-secret`,
    )
    .action(async (given: Record<string, string | undefined>, command: Command) => {
      if (given.config) applyServerConfigFile(command, given.config);
      const opts = command.opts<Record<string, string | undefined>>();
      const { host, port } = parseListen(opts.listen ?? "0.0.0.0:8443");
      if (!LOG_LEVELS.includes(opts.logLevel ?? "warn")) {
        throw new Error(`--log-level must be one of ${LOG_LEVELS.join(", ")}, got "${opts.logLevel}"`);
      }
      if (!!opts.tlsCertFile !== !!opts.tlsPrivateKeyFile) {
        throw new Error("--tls-cert-file and --tls-private-key-file go together");
      }
      // Loaded only here: every other command starts without the server's modules.
      const { assertWorkersAllowed, isServerWorker, parseWorkers, reportWorkerReady, runPrimary } = await import(
        "../app/worker-cluster.js"
      );
      const workers = parseWorkers(opts.workers);
      const startTimeoutSeconds = opts.workerStartTimeout
        ? positiveSeconds(opts.workerStartTimeout, "--worker-start-timeout")
        : undefined;
      const config: ServerConfig = {
        dataDir: opts.dataDir ?? "./data",
        host,
        port,
        storage: opts.storage,
        tlsCertFile: opts.tlsCertFile,
        tlsKeyFile: opts.tlsPrivateKeyFile,
        encryptionKeyFile: opts.encryptionKeyFile,
        logLevel: opts.logLevel,
        shutdownGracePeriodSeconds: opts.shutdownGracePeriod
          ? wholeNumber(opts.shutdownGracePeriod, "--shutdown-grace-period")
          : undefined,
        shutdownDelaySeconds: opts.shutdownDelay ? wholeNumber(opts.shutdownDelay, "--shutdown-delay") : undefined,
        maxKeyTtlSeconds: opts.maxKeyTtl ? positiveSeconds(opts.maxKeyTtl, "--max-key-ttl") : undefined,
        auditLog: opts.auditLog,
        oidc: oidcConfigOf(opts),
        auditPolicyFile: opts.auditPolicyFile,
        auditLogMaxSizeMb: opts.auditLogMaxsize ? wholeNumber(opts.auditLogMaxsize, "--audit-log-maxsize") : undefined,
        auditLogMaxBackup: opts.auditLogMaxbackup
          ? wholeNumber(opts.auditLogMaxbackup, "--audit-log-maxbackup")
          : undefined,
        metricsListen: opts.metricsListen ? parseListen(opts.metricsListen, "--metrics-listen") : undefined,
        trustedProxies: opts.trustedProxies?.split(","),
        allowLocalEndpoints: switchValue(opts.allowLocalEndpoints, "--allow-local-endpoints"),
      };
      assertWorkersAllowed(workers, {
        storage: config.storage,
        auditLogRotation: (config.auditLogMaxSizeMb ?? 0) > 0 && config.auditLog !== "-",
      });
      // The whole shutdown's limit: the delay, the requests' grace period, then the rest.
      const shutdownDelay = config.shutdownDelaySeconds ?? 0;
      const shutdownLimit =
        shutdownDelay + (config.shutdownGracePeriodSeconds ?? DEFAULT_SHUTDOWN_GRACE_SECONDS) + SHUTDOWN_SLACK_SECONDS;
      if (workers > 1 && !isServerWorker()) {
        // The primary (worker-cluster.ts): bootstraps once, then runs the server in `workers` processes.
        const { bootstrapBeforeWorkers } = await import("../app/primary-bootstrap.js");
        await runPrimary(workers, () => bootstrapBeforeWorkers(config), {
          graceSeconds: shutdownLimit + 5,
          logLevel: config.logLevel ?? "warn",
          startTimeoutSeconds,
        }).catch(failedStart(""));
        return;
      }
      // A worker's plain-text notes name it as its JSON lines do (`worker`, request-log.ts).
      const { workerNumber } = await import("../server/worker-number.js");
      const who = isServerWorker() ? `worker ${workerNumber()} (pid ${process.pid}) ` : "";
      const { startServer } = await import("../app/start-server.js");
      const server = await startServer(config).catch(failedStart(who));
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) {
          // A second signal: the operator does not want to wait.
          process.stderr.write(`${signal} again: exiting now\n`);
          process.exit(1);
        }
        stopping = true;
        if (shutdownDelay > 0) {
          process.stderr.write(
            `${who}${signal}: /readyz fails from now on; serving ${shutdownDelay} s more (--shutdown-delay)\n`,
          );
        }
        const draining = () =>
          process.stderr.write(`${who}${signal}: finishing in-flight requests and closing the store\n`);
        // A shutdown that does not finish (a stuck client connection or controller) must not
        // leave a process that holds the data dir's lock: give up after the grace period.
        setTimeout(() => {
          process.stderr.write(`${who}shutdown did not finish within ${shutdownLimit} s; exiting\n`);
          process.exit(1);
        }, shutdownLimit * 1000).unref();
        server.close({ draining }).then(
          () => process.exit(0),
          (err: unknown) => {
            console.error(err);
            process.exit(1);
          },
        );
      };
      process.on("SIGTERM", () => stop("SIGTERM"));
      // A worker stops when its primary says so (SIGTERM); a terminal's Ctrl-C reaches the primary too.
      process.on("SIGINT", () => (isServerWorker() ? undefined : stop("SIGINT")));
      // Only now the banner: whoever reads it may stop the server at once, and that signal must
      // find the handlers above (printed before them, a SIGTERM could kill the process uncleanly).
      // The banner alone goes to stdout (a worker's, through its primary); logs and shutdown notes go to stderr.
      const text = banner(server, host, opts.dataDir ?? "./data") + ssoNotes(server);
      if (isServerWorker()) reportWorkerReady(text);
      else process.stdout.write(text);
    });
}
