import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AgentConfig, type RunningAgent, startAgent } from "../agent/agent.js";
import { loadOrCreateServerTls } from "../crypto/certificates.js";

/**
 * `platform agent` as the tests start it, beside a stand-in cluster: its files in one directory,
 * upstream.kubeconfig (how it reaches the cluster) and tls/ (its serving certificate, made once,
 * so that one CA trusts every agent started from the directory).
 */

/** Writes `cluster`'s kubeconfig and makes the serving certificate in `dir`; returns the certificate's CA. */
export async function prepareAgentDir(dir: string, cluster: { kubeconfig(): string }): Promise<string> {
  writeFileSync(join(dir, "upstream.kubeconfig"), cluster.kubeconfig(), { mode: 0o600 });
  return (await loadOrCreateServerTls(join(dir, "tls"))).caPem ?? "";
}

/**
 * An agent of cluster c1 for `platform`, on a free port of 127.0.0.1, with the files of `dir`
 * (prepareAgentDir); `config` adds to that or overrides it.
 */
export async function startTestAgent(
  platform: { url: string; caPem?: string },
  dir: string,
  config: Partial<AgentConfig> = {},
): Promise<RunningAgent> {
  return startAgent({
    platformUrl: platform.url,
    platformCaPem: platform.caPem,
    cluster: "c1",
    upstreamKubeconfig: join(dir, "upstream.kubeconfig"),
    host: "127.0.0.1",
    port: 0,
    tls: await loadOrCreateServerTls(join(dir, "tls")),
    ...config,
  });
}
