import { Command, CommanderError } from "commander";
import { registerAccessKeyCommands } from "./accesskeys.js";
import { registerAdminCommands } from "./admin-command.js";
import { registerAgentCommand } from "./agent-command.js";
import { registerBackupCommands } from "./backup-command.js";
import { clientSettings } from "./client-settings.js";
import { endQuietlyWhenOutputCloses } from "./closed-output.js";
import { registerCompletionCommand } from "./completion.js";
import { registerCompleteNamesCommand } from "./completion-names.js";
import { CliError, USAGE_EXIT_CODE } from "./errors.js";
import { closeTransports, parseRequestTimeout } from "./http-transport.js";
import { registerListCommand } from "./list.js";
import { registerLoginCommands } from "./login.js";
import { registerMigrateStorageCommand } from "./migrate-storage-command.js";
import { red } from "./output.js";
import { registerSecretCommands } from "./secrets.js";
import { registerSpaceActionCommands } from "./space-actions.js";
import { registerSpaceCommands } from "./spaces.js";
import { registerStartCommand } from "./start-command.js";
import { registerTokenCommand } from "./token.js";
import { registerUseCommand } from "./use.js";
import { registerUseClusterCommands } from "./use-cluster.js";
import { registerVirtualClusterCreateCommands } from "./vcluster-create.js";
import { registerSleepCommands } from "./vcluster-sleep.js";
import { registerVirtualClusterCommands } from "./vclusters.js";

type Register = (program: Command) => void;

/**
 * Every file of commands, in the order `platform --help` lists them, with the top-level commands
 * each adds: a command builds only the files it needs (registering every command is a good part
 * of a client command's start). A top-level command of several files (`list`) names each.
 */
const COMMAND_FILES: { register: Register; adds: string[] }[] = [
  { register: registerStartCommand, adds: ["start"] },
  { register: registerAgentCommand, adds: ["agent"] },
  { register: registerMigrateStorageCommand, adds: ["migrate-storage"] },
  { register: registerBackupCommands, adds: ["backup", "restore"] },
  { register: registerLoginCommands, adds: ["login", "logout", "whoami"] },
  { register: registerSecretCommands, adds: ["get", "create", "set", "delete"] },
  { register: registerAccessKeyCommands, adds: ["create", "list", "delete"] },
  { register: registerListCommand, adds: ["list"] },
  { register: registerVirtualClusterCommands, adds: ["import", "move", "connect"] },
  { register: registerSleepCommands, adds: ["sleep", "wakeup"] },
  { register: registerVirtualClusterCreateCommands, adds: ["create", "delete"] },
  { register: registerSpaceCommands, adds: ["create", "delete"] },
  { register: registerUseCommand, adds: ["use"] },
  { register: registerTokenCommand, adds: ["token"] },
  { register: registerUseClusterCommands, adds: ["use"] },
  { register: registerSpaceActionCommands, adds: ["use", "import", "move"] },
  // Completion reads the whole program: it is built for it (like help) whatever it names.
  { register: registerCompletionCommand, adds: [] },
  { register: registerCompleteNamesCommand, adds: [] },
  { register: registerAdminCommands, adds: ["admin"] },
];

/**
 * The top-level command `argv` runs (`list` in `platform --debug list users`), or undefined when
 * it names none before its first operand (help, version).
 */
export function commandOf(argv: string[]): string | undefined {
  const args = argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--request-timeout") i++;
    else if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

/**
 * The command tree `main` runs: the whole of it, or only the files that add `command` when some
 * do (an unknown or misspelled command gets the whole tree, and with it the suggestions).
 */
export function buildProgram(command?: string): Command {
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
  const needed = COMMAND_FILES.filter((file) => command !== undefined && file.adds.includes(command));
  for (const { register } of needed.length > 0 ? needed : COMMAND_FILES) register(program);
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
  const command = commandOf(argv);
  endQuietlyWhenOutputCloses(command);
  const program = buildProgram(command);
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
