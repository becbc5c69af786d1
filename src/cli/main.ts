import { Command } from "commander";
import { registerMigrateStorageCommand } from "./migrate-storage-command.js";
import { registerStartCommand } from "./start-command.js";

export async function main(argv: string[]): Promise<void> {
  const program = new Command();
  program
    .name("platform")
    .description("Manage users, teams, clusters, shared secrets and access keys")
    .version("0.1.0");
  registerStartCommand(program);
  registerMigrateStorageCommand(program);
  await program.parseAsync(argv);
}
