import type { KubeObject } from "../api/object.js";
import { ClusterConnectionError, clusterClient, DEFAULT_SECRET_NAMESPACE } from "../clusters/cluster-connection.js";
import type { EndpointPolicy } from "../clusters/endpoint-policy.js";
import type { Informer } from "../registry/informer.js";
import type { Registry } from "../registry/registry.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import { EndpointNotAllowedError } from "../support/guarded-lookup.js";
import { retireUpstream, type Upstream, upstreamFromKubeConfig } from "./upstream.js";

/**
 * One upstream (parsed kubeconfig, keep-alive pool) per connected cluster, built on first use
 * and rebuilt when the Cluster's spec or annotations, or its config SharedSecret, change, or
 * (spec.local) when the pod's ServiceAccount token file is rotated. The
 * replica's shared informers keep Clusters and SharedSecrets in memory, so a request reads
 * neither from storage.
 */
export class ClusterUpstreams {
  readonly clusters: Informer;
  private readonly secrets: Informer;
  private readonly built = new Map<string, Promise<Upstream>>();
  /** The upstreams of `built` whose build has finished: a request finds them without a promise. */
  private readonly ready = new Map<string, Upstream>();
  private readonly unsubscribe: Array<() => void> = [];

  constructor(
    private readonly registry: Registry,
    informers: SharedInformers,
    /** Where the kubeconfig's server may lead: its writers steer every user's requests there. */
    private readonly policy: EndpointPolicy,
  ) {
    this.clusters = informers.for("clusters");
    this.secrets = informers.for("sharedsecrets");
  }

  async start(): Promise<void> {
    this.unsubscribe.push(
      this.clusters.onChange((e) => {
        const name = e.object.metadata.name!;
        // Status writes of the health check change neither generation nor annotations.
        if (
          e.type === "delete" ||
          !e.old ||
          e.old.metadata.generation !== e.object.metadata.generation ||
          JSON.stringify(e.old.metadata.annotations ?? {}) !== JSON.stringify(e.object.metadata.annotations ?? {})
        )
          this.forget(name);
      }),
      this.secrets.onChange((e) => {
        for (const c of this.clusters.list()) {
          const cfg = (c.spec?.config ?? {}) as { secretName?: string; secretNamespace?: string };
          if (
            cfg.secretName === e.object.metadata.name &&
            (cfg.secretNamespace || DEFAULT_SECRET_NAMESPACE) === e.object.metadata.namespace
          )
            this.forget(c.metadata.name!);
        }
      }),
    );
    await Promise.all([this.clusters.synced(), this.secrets.synced()]);
  }

  stop(): void {
    for (const u of this.unsubscribe.splice(0)) u();
    for (const name of [...this.built.keys()]) this.forget(name);
  }

  cluster(name: string): KubeObject | undefined {
    return this.clusters.get(undefined, name);
  }

  /** The cluster's upstream when it is built already (and not replaced since); else undefined. */
  builtUpstream(name: string): Upstream | undefined {
    const ready = this.ready.get(name);
    if (!ready?.credentialsChanged?.()) return ready;
    this.forget(name);
    return undefined;
  }

  /** The cluster's upstream; rejects with ClusterConnectionError when its config cannot be used. */
  upstream(cluster: KubeObject): Promise<Upstream> {
    const name = cluster.metadata.name!;
    if (this.ready.get(name)?.credentialsChanged?.()) this.forget(name);
    let p = this.built.get(name);
    if (!p) {
      p = this.build(cluster);
      this.built.set(name, p);
      const built = p;
      // A failed build (secret missing, bad kubeconfig) is retried on the next request.
      built.then(
        (u) => {
          if (this.built.get(name) === built) this.ready.set(name, u);
        },
        () => {
          if (this.built.get(name) === built) this.built.delete(name);
        },
      );
    }
    return p;
  }

  private async build(cluster: KubeObject): Promise<Upstream> {
    const client = await clusterClient(this.registry, cluster, this.policy);
    try {
      // In-cluster config (spec.local) refers to the service account's token and CA files; the
      // token file is read again when the kubelet rotates it (Upstream.credentialsChanged).
      return upstreamFromKubeConfig(client.kubeConfig, this.policy);
    } catch (err) {
      if (err instanceof EndpointNotAllowedError) throw new ClusterConnectionError("EndpointNotAllowed", err.message);
      throw new ClusterConnectionError("InClusterConfigNotFound", (err as Error).message);
    }
  }

  private forget(name: string): void {
    const p = this.built.get(name);
    if (!p) return;
    this.built.delete(name);
    this.ready.delete(name);
    p.then(retireUpstream, () => {});
  }
}
