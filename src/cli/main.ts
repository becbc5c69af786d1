import { Command, CommanderError } from "commander";
import { registerAccessKeyCommands } from "./accesskeys.js";
import { registerAdminCommands } from "./admin-command.js";
import { registerAgentCommand } from "./agent-command.js";
import { registerBackupCommands } from "./backup-command.js";
import { clientSettings } from "./client-settings.js";
import { registerCompletionCommand } from "./completion.js";
import { registerCompleteNamesCommand } from "./completion-names.js";
import { CliError, USAGE_EXIT_CODE } from "./errors.js";
import { closeTransports, parseRequestTimeout } from "./http-transport.js";
import { registerListCommand } from "./list.js";
import { registerLoginCommands } from "./login.js";
import { registerMigrateStorageCommand } from "./migrate-storage-command.js";
import { red } from "./output.js";
import { registerSecretCommands } from "./secrets.js";
import { registerSpaceCommands } from "./spaces.js";
import { registerStartCommand } from "./start-command.js";
import { registerTokenCommand } from "./token.js";
import { registerUseCommand } from "./use.js";
import { registerUseClusterCommands } from "./use-cluster.js";
import { registerVirtualClusterCreateCommands } from "./vcluster-create.js";
import { registerVirtualClusterCommands } from "./vclusters.js";

/** The whole command tree, as `main` runs it (its tests read the flags it accepts). */
export function buildProgram(): Command {
  const program = new Command();
  program
    .name("platform")
    .description("Manage users, teams, clusters, shared secrets and access keys")
    .version("0.1.0")
    .option("--request-timeout <duration>", "give up on a request after this long, e.g. 10s or 1m (0: never)", "30s")
    .option("--debug", "print each request and the status of its answer on stderr")
    .showSuggestionAfterError(true)
    .addHelpText(
      "after",
      `
Examples:
  platform start --data-dir ./data
  platform login https://localhost:8443 --access-key "$(cat data/admin-access-key)" --certificate-authority data/ca.crt
  platform whoami
  platform list users
  platform create secret db --from-literal password=s3cret
  platform get secret db.password
  platform use management && kubectl get users`,
    );
  // The global flags apply to whichever subcommand runs.
  program.hook("preAction", () => {
    const opts = program.opts<{ requestTimeout: string; debug?: boolean }>();
    clientSettings.requestTimeoutMs = parseRequestTimeout(opts.requestTimeout);
    clientSettings.debug = opts.debug === true;
  });
  registerStartCommand(program);
  registerAgentCommand(program);
  registerMigrateStorageCommand(program);
  registerBackupCommands(program);
  registerLoginCommands(program);
  registerSecretCommands(program);
  registerAccessKeyCommands(program);
  registerListCommand(program);
  registerVirtualClusterCommands(program);
  registerVirtualClusterCreateCommands(program);
  registerSpaceCommands(program);
  registerUseCommand(program);
  registerTokenCommand(program);
  registerUseClusterCommands(program);
  registerCompletionCommand(program);
  registerCompleteNamesCommand(program);
  registerAdminCommands(program);
  // Every (sub)command reports usage errors by throwing, so main decides the exit code (2).
  const exitOverride = (cmd: Command) => {
    cmd.exitOverride();
    for (const sub of cmd.commands) exitOverride(sub);
  };
  exitOverride(program);
  return program;
}

/** Runs the CLI; exit codes: 0 ok, 1 error (the server's message, never a stack trace), 2 usage. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander already printed the message (or the help / version, which are code 0).
      process.exitCode = err.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`${red("error:")} ${message}\n`);
    process.exitCode = err instanceof CliError ? err.exitCode : 1;
  } finally {
    await closeTransports();
  }
}
