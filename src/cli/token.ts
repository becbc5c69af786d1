import type { Command } from "commander";
import { requireLogin } from "./config.js";

/**
 * `platform token`: the exec credential plugin of the kube contexts the CLI writes
 * (client.authentication.k8s.io/v1). kubectl runs it for each request and reads an ExecCredential
 * from stdout; the key itself stays in the CLI's own 0600 config, not in the kubeconfig.
 */
export function registerTokenCommand(program: Command): void {
  program
    .command("token")
    .description(
      "Print the stored login's access key as a kubectl ExecCredential (used by the contexts `platform use` writes)",
    )
    .addHelpText("after", "\nExample:\n  platform token | jq -r .status.token")
    .action(() => {
      const login = requireLogin();
      const credential = {
        apiVersion: "client.authentication.k8s.io/v1",
        kind: "ExecCredential",
        status: { token: login.accessKey },
      };
      process.stdout.write(`${JSON.stringify(credential)}\n`);
    });
}
