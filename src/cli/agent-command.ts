import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { parseListen } from "./start-flags.js";

export function registerAgentCommand(program: Command): void {
  program
    .command("agent")
    .description(
      "Run the direct cluster endpoint beside a connected cluster: an HTTPS gateway that accepts the platform's DirectClusterEndpointTokens",
    )
    .requiredOption("--platform-url <url>", "the platform's URL (its /.well-known/jwks.json verifies tokens)")
    .requiredOption("--cluster <name>", "the name of this cluster on the platform")
    .requiredOption("--upstream-kubeconfig <file>", "kubeconfig of the cluster's API server (may impersonate)")
    .option("--listen <host:port>", "address to listen on", "0.0.0.0:8444")
    .option("--platform-ca-file <file>", "CA of the platform's serving certificate (default: system CAs)")
    .option("--tls-cert-file <file>", "serving certificate (PEM); generated in --data-dir when absent")
    .option("--tls-private-key-file <file>", "private key of --tls-cert-file (PEM)")
    .option("--data-dir <dir>", "where a generated serving certificate is kept", "./agent-data")
    .option("--audit-log <file>", "write an audit line per forwarded request to this file, or - for stdout")
    .option(
      "--trusted-proxies <cidrs>",
      "proxies/ingresses whose X-Forwarded-For gives the client address, as CIDR[,CIDR...] (default: none)",
    )
    .addHelpText(
      "after",
      `
Examples:
  platform agent --platform-url https://platform.example.com --cluster prod \\
    --upstream-kubeconfig /etc/platform/prod.kubeconfig --listen 0.0.0.0:8444`,
    )
    .action(async (opts: Record<string, string | undefined>) => {
      const { host, port } = parseListen(opts.listen ?? "0.0.0.0:8444");
      if (!!opts.tlsCertFile !== !!opts.tlsPrivateKeyFile) {
        throw new Error("--tls-cert-file and --tls-private-key-file go together");
      }
      // Loaded only here: the other commands start without the agent's modules.
      const { startAgent } = await import("../agent/agent.js");
      const { loadOrCreateServerTls, servingHostsForListen } = await import("../crypto/certificates.js");
      const tls =
        opts.tlsCertFile && opts.tlsPrivateKeyFile
          ? { certPem: readFileSync(opts.tlsCertFile, "utf8"), keyPem: readFileSync(opts.tlsPrivateKeyFile, "utf8") }
          : await loadOrCreateServerTls(opts.dataDir ?? "./agent-data", {
              extraHosts: servingHostsForListen(host),
            });
      const agent = await startAgent({
        platformUrl: opts.platformUrl!,
        platformCaPem: opts.platformCaFile ? readFileSync(opts.platformCaFile, "utf8") : undefined,
        cluster: opts.cluster!,
        upstreamKubeconfig: opts.upstreamKubeconfig!,
        host,
        port,
        tls,
        auditLog: opts.auditLog,
        trustedProxies: opts.trustedProxies?.split(","),
      });
      const stop = () => agent.close().then(() => process.exit(0));
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
      // After the handlers: a reader of this line may stop the agent at once.
      process.stdout.write(`platform agent for cluster ${opts.cluster} is serving on ${agent.url}\n`);
    });
}
