import type { Command } from "commander";
import { apiPath, loggedInClient, projectNamespace, verbCommand } from "./common.js";
import {
  addUnsafeDeleteOption,
  deletedMessage,
  deleteWithOptions,
  type UnsafeDeleteOpts,
} from "./unsafe-delete-flag.js";

/** An instance kind a project holds, as its `delete` command names and describes it. */
export interface ProjectInstanceKind {
  /** The command's noun and the word its messages use: `vcluster`, `space`. */
  noun: string;
  /** The API resource: `virtualclusterinstances`, `spaceinstances`. */
  plural: string;
  /** The command's description: what the platform does on the cluster when the instance goes. */
  description: string;
  /** The description of the NAME argument. */
  argument: string;
  /** A name for the help's example. */
  example: string;
}

/** `platform delete NOUN NAME --project P`: deletes a project's instance, printing one line. */
export function registerProjectInstanceDelete(program: Command, kind: ProjectInstanceKind): void {
  addUnsafeDeleteOption(
    verbCommand(program, "delete", "Delete an object")
      .command(kind.noun)
      .description(kind.description)
      .argument("<name>", kind.argument)
      .requiredOption("--project <project>", "its project"),
  )
    .addHelpText("after", `\nExamples:\n  platform delete ${kind.noun} ${kind.example} --project web`)
    .action(async (name: string, opts: { project: string } & UnsafeDeleteOpts) => {
      await deleteWithOptions(loggedInClient(), apiPath(kind.plural, name, projectNamespace(opts.project)), opts);
      process.stdout.write(deletedMessage(`${kind.noun} ${name} in project ${opts.project}`, opts));
    });
}
