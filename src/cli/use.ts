import type { Command } from "commander";
import { API_PREFIX } from "../api/object.js";
import { perServerName } from "../support/kubeconfig-names.js";
import { verbCommand } from "./common.js";
import { requireLogin } from "./config.js";
import { addLoginContext } from "./kubeconfig.js";

export function registerUseCommand(program: Command): void {
  const use = verbCommand(program, "use", "Point kubectl at something");
  use
    .command("management")
    .description(
      "Add a kubectl context for the management API of the stored login (its server and CA; the key through `platform token`) to ~/.kube/config or the first file of $KUBECONFIG, and make it current",
    )
    .option("--context-name <name>", "name of the context (default: platform@HOST:PORT of the login's server)")
    .option("--no-switch", "add the context without making it current")
    .option(
      "--inline-key",
      "write the access key itself into the kubeconfig (for CI) instead of calling `platform token` for it",
    )
    .addHelpText(
      "after",
      "\nExamples:\n  platform use management && kubectl get users\n  platform use management --context-name prod-platform --no-switch\n  platform use management --inline-key   # CI: the key itself in the kubeconfig",
    )
    .action((opts: { contextName?: string; switch: boolean; inlineKey?: boolean }) => {
      const login = requireLogin();
      const name = opts.contextName ?? perServerName("platform", login.server);
      const file = addLoginContext(login, {
        name,
        server: `${login.server}${API_PREFIX}`,
        switchTo: opts.switch,
        inlineKey: opts.inlineKey,
      });
      process.stdout.write(
        `Context ${name} added to ${file}${opts.switch ? " and made current" : ""}. Try: kubectl${opts.switch ? "" : ` --context ${name}`} get users\n`,
      );
    });
}
