/**
 * `platform start`: the flags (start-flags.ts) become the server's configuration, the server
 * starts (one process, or a primary and its workers), and once it serves it prints its banner
 * (start-banner.ts) and stops on a signal (start-shutdown.ts).
 */
import type { Command } from "commander";
import type { ServerConfig } from "../app/config.js";
import { addOidcOptions } from "./oidc-options.js";
import { applyServerConfigFile } from "./server-config-file.js";
import { banner, ssoNotes } from "./start-banner.js";
import {
  addObservabilityFlags,
  addProcessFlags,
  addServingFlags,
  addTrustFlags,
  DEFAULT_SHUTDOWN_GRACE_SECONDS,
  positiveSeconds,
  serverConfigOf,
} from "./start-flags.js";
import { failedStart, shutdownLimitSeconds, stopOnSignals } from "./start-shutdown.js";

export function registerStartCommand(program: Command): void {
  const start = program
    .command("start")
    .description("Run the platform API server (embedded SQLite storage by default)");
  addProcessFlags(addTrustFlags(addObservabilityFlags(addServingFlags(start)))).option(
    "--config <file>",
    "YAML file of these flags (keys without --; see docs/deployment.md); flags win",
  );
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
    .action(startAction);
}

async function startAction(given: Record<string, string | undefined>, command: Command): Promise<void> {
  if (given.config) applyServerConfigFile(command, given.config);
  const opts = command.opts<Record<string, string | undefined>>();
  const config = serverConfigOf(opts);
  // Loaded only here: every other command starts without the server's modules.
  const { assertWorkersAllowed, isServerWorker, parseWorkers, runPrimary } = await import("../app/worker-cluster.js");
  const workers = parseWorkers(opts.workers);
  const startTimeoutSeconds = opts.workerStartTimeout
    ? positiveSeconds(opts.workerStartTimeout, "--worker-start-timeout")
    : undefined;
  assertWorkersAllowed(workers, {
    storage: config.storage,
    auditLogRotation: (config.auditLogMaxSizeMb ?? 0) > 0 && config.auditLog !== "-",
  });
  const shutdownLimit = shutdownLimitSeconds(
    config.shutdownDelaySeconds ?? 0,
    config.shutdownGracePeriodSeconds ?? DEFAULT_SHUTDOWN_GRACE_SECONDS,
  );
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
  await serve(config, shutdownLimit);
}

/** One serving process: the only one, or a worker of a primary. */
async function serve(config: ServerConfig, shutdownLimit: number): Promise<void> {
  const { isServerWorker, reportWorkerReady } = await import("../app/worker-cluster.js");
  // A worker's plain-text notes name it as its JSON lines do (`worker`, request-log.ts).
  const { workerNumber } = await import("../server/worker-number.js");
  const isWorker = isServerWorker();
  const who = isWorker ? `worker ${workerNumber()} (pid ${process.pid}) ` : "";
  const { startServer } = await import("../app/start-server.js");
  const server = await startServer(config).catch(failedStart(who));
  stopOnSignals({
    close: (hooks) => server.close(hooks),
    who,
    delaySeconds: config.shutdownDelaySeconds ?? 0,
    limitSeconds: shutdownLimit,
    isWorker,
  });
  // Only now the banner: whoever reads it may stop the server at once, and that signal must
  // find the handlers above (printed before them, a SIGTERM could kill the process uncleanly).
  // The banner alone goes to stdout (a worker's, through its primary); logs and shutdown notes go to stderr.
  const text = banner(server, config.host ?? "0.0.0.0", config.dataDir) + ssoNotes(server);
  if (isWorker) reportWorkerReady(text);
  else process.stdout.write(text);
}
