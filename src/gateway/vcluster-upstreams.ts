import type { KubeObject } from "../api/object.js";
import type { EndpointPolicy } from "../clusters/endpoint-policy.js";
import { createClientCertificate } from "../crypto/certificates.js";
import type { Registry } from "../registry/registry.js";
import { caIdOf, type VirtualClusterCaStore } from "../virtualclusters/ca-store.js";
import { virtualClusterCa, virtualClusterEndpoint } from "../virtualclusters/reach.js";
import { makeUpstream, retireUpstream, type Upstream } from "./upstream.js";

/** Client certificates the gateway makes live this long, and are reused for half of it. */
const CERT_VALIDITY_SECONDS = 86_400;
const REUSE_MS = (CERT_VALIDITY_SECONDS * 1000) / 2;
/** Upstreams kept (one per instance and caller); past it the oldest is retired. */
const MAX_ENTRIES = 5_000;

/**
 * One upstream per virtual cluster instance and caller: a client certificate with CN = user,
 * O = groups signed by the virtual cluster's CA (as the kube config action makes), so the
 * virtual cluster's own RBAC sees the platform user. Built once and reused while valid.
 */
export class VirtualClusterUpstreams {
  private readonly entries = new Map<string, { upstream: Promise<Upstream>; expires: number }>();

  constructor(
    private readonly registry: Registry,
    private readonly cas: VirtualClusterCaStore,
    private readonly cluster: (name: string) => KubeObject | undefined,
    /** Where an instance's endpoint may lead: who administers it steers its users' requests there. */
    private readonly policy: EndpointPolicy,
  ) {}

  upstream(instance: KubeObject, user: string, groups: readonly string[]): Promise<Upstream> {
    const endpoint = this.endpoint(instance);
    // What the upstream is built from: the spec (generation) and the kept CA (caIdOf). Not the
    // resourceVersion, which every status write moves (sleep mode records activity there).
    const key = JSON.stringify([
      instance.metadata.uid,
      instance.metadata.generation,
      caIdOf(instance),
      endpoint,
      user,
      groups,
    ]);
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.upstream;
    if (hit) this.drop(key);
    const upstream = this.build(instance, endpoint, user, groups);
    this.entries.set(key, { upstream, expires: now + REUSE_MS });
    upstream.catch(() => this.entries.delete(key));
    while (this.entries.size > MAX_ENTRIES) this.drop(this.entries.keys().next().value!);
    return upstream;
  }

  close(): void {
    for (const key of [...this.entries.keys()]) this.drop(key);
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    this.entries.delete(key);
    entry?.upstream.then(retireUpstream, () => {});
  }

  private endpoint(instance: KubeObject): string {
    return virtualClusterEndpoint(instance, this.cluster);
  }

  private async build(instance: KubeObject, endpoint: string, user: string, groups: readonly string[]) {
    const ca = await virtualClusterCa(this.registry, this.cas, instance, this.cluster, this.policy);
    const cert = await createClientCertificate(ca, {
      commonName: user,
      organizations: [...groups],
      validitySeconds: CERT_VALIDITY_SECONDS,
    });
    return makeUpstream(endpoint, { caPem: ca.certPem, certPem: cert.certPem, keyPem: cert.keyPem }, {}, this.policy);
  }
}
