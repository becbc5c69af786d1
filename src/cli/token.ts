import type { Command } from "commander";
import { normalizeServer } from "./api-client.js";
import { requireLogin } from "./config.js";
import { CliError } from "./errors.js";

/**
 * The ExecCredential version the contexts `platform use` writes name: v1beta1, the one every
 * kubectl since 1.11 accepts (v1 only since 1.22; kubectl 1.20 refuses it).
 */
export const EXEC_CREDENTIAL_VERSION = "client.authentication.k8s.io/v1beta1";
const KNOWN_VERSIONS = new Set([
  "client.authentication.k8s.io/v1",
  EXEC_CREDENTIAL_VERSION,
  "client.authentication.k8s.io/v1alpha1",
]);

/**
 * The version to answer in: the one the kubeconfig names, which kubectl passes in
 * KUBERNETES_EXEC_INFO and requires back (so contexts written with v1 keep working); v1beta1
 * when run by hand.
 */
export function execCredentialVersion(execInfo: string | undefined): string {
  if (!execInfo) return EXEC_CREDENTIAL_VERSION;
  try {
    const asked = (JSON.parse(execInfo) as { apiVersion?: unknown }).apiVersion;
    return typeof asked === "string" && KNOWN_VERSIONS.has(asked) ? asked : EXEC_CREDENTIAL_VERSION;
  } catch {
    return EXEC_CREDENTIAL_VERSION;
  }
}

/**
 * `platform token`: the exec credential plugin of the kube contexts the CLI writes.
 * kubectl runs it for each request and reads an ExecCredential from stdout; the key itself
 * stays in the CLI's own 0600 config, not in the kubeconfig.
 */
export function registerTokenCommand(program: Command): void {
  program
    .command("token")
    .description(
      "Print the stored login's access key as a kubectl ExecCredential (used by the contexts `platform use` writes)",
    )
    .option(
      "--server <url>",
      "the server the key is for: refuse when the stored login is for another one (the contexts `platform use management` writes pass it)",
    )
    .addHelpText(
      "after",
      "\nExamples:\n  platform token | jq -r .status.token\n  platform token --server https://platform.example.com:8443",
    )
    .action((opts: { server?: string }) => {
      const login = requireLogin();
      // A context written for server A must never receive the key of a later login to server B.
      if (opts.server !== undefined && normalizeServer(opts.server) !== normalizeServer(login.server)) {
        throw new CliError(
          `the stored login is for ${login.server}, not ${opts.server}; log in to ${opts.server} again to use this context (\`platform login ${opts.server} --access-key KEY\`)`,
        );
      }
      const credential = {
        apiVersion: execCredentialVersion(process.env.KUBERNETES_EXEC_INFO),
        kind: "ExecCredential",
        status: { token: login.accessKey },
      };
      process.stdout.write(`${JSON.stringify(credential)}\n`);
    });
}
