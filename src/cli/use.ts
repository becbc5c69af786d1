import type { Command } from "commander";
import { API_PREFIX } from "../api/object.js";
import { verbCommand } from "./common.js";
import { requireLogin } from "./config.js";
import { kubeconfigPath, mergeContext } from "./kubeconfig.js";

export function registerUseCommand(program: Command): void {
  const use = verbCommand(program, "use", "Point kubectl at something");
  use
    .command("management")
    .description(
      "Add a kubectl context for the management API of the stored login (its server, CA and access key) to ~/.kube/config or the first file of $KUBECONFIG, and make it current",
    )
    .option("--context-name <name>", "name of the context", "platform")
    .option("--no-switch", "add the context without making it current")
    .addHelpText(
      "after",
      "\nExamples:\n  platform use management && kubectl get users\n  platform use management --context-name prod-platform --no-switch",
    )
    .action((opts: { contextName: string; switch: boolean }) => {
      const login = requireLogin();
      const cluster: Record<string, unknown> = { server: `${login.server}${API_PREFIX}` };
      if (login.certificateAuthorityData) {
        cluster["certificate-authority-data"] = Buffer.from(login.certificateAuthorityData).toString("base64");
      }
      if (login.insecureSkipTLSVerify) cluster["insecure-skip-tls-verify"] = true;
      const file = kubeconfigPath();
      mergeContext(file, opts.contextName, cluster, { token: login.accessKey }, opts.switch);
      process.stdout.write(
        `Context ${opts.contextName} added to ${file}${opts.switch ? " and made current" : ""}. Try: kubectl${opts.switch ? "" : ` --context ${opts.contextName}`} get users\n`,
      );
    });
}
