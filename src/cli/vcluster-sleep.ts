import type { Command } from "commander";
import { GROUP_API } from "./api-client.js";
import { loggedInClient, projectNamespace, verbCommand } from "./common.js";

/** `platform sleep|wakeup vcluster NAME --project P`: the instance's sleep and wakeup actions (docs/virtual-clusters.md). */
export function registerSleepCommands(program: Command): void {
  for (const [verb, parent, summary, done] of [
    [
      "sleep",
      "Put an object to sleep",
      "Put a virtual cluster to sleep: its workload is scaled to zero",
      "is going to sleep",
    ],
    ["wakeup", "Wake an object up", "Wake a sleeping virtual cluster: its workload is scaled back up", "is waking up"],
  ] as const) {
    verbCommand(program, verb, parent)
      .command("vcluster")
      .description(summary)
      .argument("<name>", "virtual cluster instance")
      .requiredOption("--project <project>", "project it is in")
      .addHelpText("after", `\nExamples:\n  platform ${verb} vcluster dev --project web`)
      .action(async (name: string, opts: { project: string }) => {
        const path = `${GROUP_API}/namespaces/${encodeURIComponent(projectNamespace(opts.project))}/virtualclusterinstances/${encodeURIComponent(name)}/${verb}`;
        await loggedInClient().post(path, {});
        process.stdout.write(`vcluster ${name} in project ${opts.project} ${done}\n`);
      });
  }
}
