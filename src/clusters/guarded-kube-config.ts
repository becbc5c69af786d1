import https from "node:https";
import type { LookupFunction } from "node:net";
import type { KubeConfig, RequestContext } from "@kubernetes/client-node";

type KubeConfigClass = typeof KubeConfig;

/**
 * A KubeConfig whose connections resolve host names with `lookup` (endpoint-policy.ts: a name that
 * resolves to an address the policy forbids is refused at each connection): the client builds a
 * new https.Agent for each request, so it is rebuilt here with the same TLS options plus the
 * lookup. `Base` is the client library's KubeConfig, which its callers load on first use.
 */
export function guardedKubeConfig(Base: KubeConfigClass): new (lookup: LookupFunction) => KubeConfig {
  return class GuardedKubeConfig extends Base {
    constructor(private readonly lookup: LookupFunction) {
      super();
    }

    override async applySecurityAuthentication(context: RequestContext): Promise<void> {
      await super.applySecurityAuthentication(context);
      const agent = context.getAgent() as https.Agent | undefined;
      context.setAgent(new https.Agent({ ...agent?.options, lookup: this.lookup }));
    }
  };
}
