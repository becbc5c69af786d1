import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "../../api/object.js";
import type { EventRecorder } from "../../events/event-recorder.js";
import { recordClusterHealth } from "../../events/messages.js";
import { Informer } from "../../registry/informer.js";
import type { Registry } from "../../registry/registry.js";
import { systemContext } from "../../registry/request-context.js";
import {
  ClusterConnectionError,
  classifyError,
  clusterClient,
  DEFAULT_SECRET_NAMESPACE,
  withDeadline,
} from "./cluster-connection.js";

export interface ClusterHealthOptions {
  /** How often every cluster is checked again (default one minute). */
  intervalMs?: number;
  /** How long one check may take before the cluster counts as unreachable (default 10 s). */
  timeoutMs?: number;
  /** Checks running at once at most (default 16); the others wait their turn in order. */
  concurrency?: number;
  /** Reports Ready ↔ NotReady changes (src/events). */
  events?: EventRecorder;
}

/** What a check found, as written to Cluster.status. */
export interface ClusterHealth {
  phase: "Initialized" | "Failed";
  online: boolean;
  reason: string;
  message: string;
}

/** Namespace listed to prove the credentials can read what the platform needs, when spec.managementNamespace is empty. */
const DEFAULT_PROBE_NAMESPACE = DEFAULT_SECRET_NAMESPACE;

/**
 * Keeps Cluster.status current: connects to every Cluster with the kubeconfig in its
 * config secret, on start, whenever its spec (generation) or its config secret changes,
 * and every `intervalMs`. Status goes through the status subresource, so a check never
 * bumps generation and never triggers itself. start()/stop() let leader election run it
 * on one replica at a time.
 */
export class ClusterHealthController {
  private readonly intervalMs: number;
  private readonly timeoutMs: number;
  private clusters?: Informer;
  private secrets?: Informer;
  private timer?: NodeJS.Timeout;
  private unsubscribe: Array<() => void> = [];
  /** Per cluster: the running check, and whether another is wanted after it. */
  private readonly running = new Map<string, { promise: Promise<void>; again: boolean }>();
  /**
   * Clusters waiting for a free check, oldest first. Every interval asks for every cluster: with
   * thousands of them, starting all at once would open thousands of connections at the same moment.
   */
  private readonly waiting = new Set<string>();
  private readonly concurrency: number;
  private stopped = true;
  private readonly events?: EventRecorder;

  constructor(
    private readonly registry: Registry,
    options: ClusterHealthOptions = {},
  ) {
    this.events = options.events;
    this.intervalMs = options.intervalMs ?? 60_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.concurrency = Math.max(1, options.concurrency ?? 16);
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.clusters = new Informer(this.registry.store("clusters"));
    this.secrets = new Informer(this.registry.store("sharedsecrets"));
    await Promise.all([this.clusters.start(), this.secrets.start()]);
    this.unsubscribe.push(
      this.clusters.onChange((e) => {
        if (e.type !== "upsert") return;
        // Spec changes bump generation; status writes (ours) do not.
        if (!e.old || e.old.metadata.generation !== e.object.metadata.generation) this.enqueue(e.object.metadata.name!);
      }),
      this.secrets.onChange((e) => {
        for (const c of this.clusters?.list() ?? []) {
          const cfg = (c.spec?.config ?? {}) as { secretName?: string; secretNamespace?: string };
          if (
            cfg.secretName === e.object.metadata.name &&
            (cfg.secretNamespace || DEFAULT_SECRET_NAMESPACE) === e.object.metadata.namespace
          ) {
            this.enqueue(c.metadata.name!);
          }
        }
      }),
    );
    this.checkAll();
    this.timer = setInterval(() => this.checkAll(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.waiting.clear();
    for (const u of this.unsubscribe.splice(0)) u();
    this.clusters?.stop();
    this.secrets?.stop();
    await Promise.allSettled([...this.running.values()].map((r) => r.promise));
  }

  /** Checks one cluster now and writes its status (tests and callers that cannot wait for the interval). */
  async checkNow(name: string): Promise<void> {
    this.waiting.delete(name);
    this.enqueue(name, true);
    await this.running.get(name)?.promise;
  }

  private checkAll(): void {
    for (const c of this.clusters?.list() ?? []) this.enqueue(c.metadata.name!);
  }

  /**
   * One check per cluster at a time (a request during a check queues one more, behind the
   * clusters already waiting), and at most `concurrency` checks at once; `now` starts it at once
   * regardless (checkNow).
   */
  private enqueue(name: string, now = false): void {
    if (this.stopped) return;
    const current = this.running.get(name);
    if (current) {
      current.again = true;
      return;
    }
    if (now) this.begin(name);
    else {
      this.waiting.add(name);
      this.startWaiting();
    }
  }

  private startWaiting(): void {
    while (!this.stopped && this.running.size < this.concurrency && this.waiting.size > 0) {
      const name = this.waiting.values().next().value!;
      this.waiting.delete(name);
      this.begin(name);
    }
  }

  private begin(name: string): void {
    const entry = { again: false, promise: Promise.resolve() };
    entry.promise = (async () => {
      try {
        await this.reconcile(name);
      } finally {
        this.running.delete(name);
        // Asked again meanwhile: to the back of the line, so that checks slower than the interval
        // cannot keep their slots while other clusters wait.
        if (entry.again && !this.stopped) this.waiting.add(name);
        this.startWaiting();
      }
    })();
    this.running.set(name, entry);
  }

  private async reconcile(name: string): Promise<void> {
    const store = this.registry.store("clusters");
    const cluster = await store.read(undefined, name);
    if (!cluster || cluster.metadata.deletionTimestamp) return;
    const health = await checkCluster(this.registry, cluster, this.timeoutMs);
    if (this.stopped) return;
    recordClusterHealth(this.events, cluster, health);
    try {
      await store.guaranteedUpdate(
        systemContext(),
        undefined,
        name,
        (obj) => {
          const next = { ...(obj.status ?? {}), ...health };
          if (isDeepStrictEqual(next, obj.status)) return undefined; // unchanged: no write, no event
          obj.status = next;
          return obj;
        },
        "status",
        "platform-cluster-health",
      );
    } catch {
      // The next check (interval or change) writes again; a failed status write must not stop the controller.
    }
  }
}

/** Connects to a cluster once and reports what happened. Never throws. */
export async function checkCluster(registry: Registry, cluster: KubeObject, timeoutMs: number): Promise<ClusterHealth> {
  let server = "";
  try {
    const client = await clusterClient(registry, cluster);
    server = client.server;
    const version = await withDeadline(client.version.getCode(), timeoutMs, server);
    // /version is open to everyone on a real API server; listing services proves the
    // credentials may read what the platform needs to find virtual clusters.
    const namespace = (cluster.spec?.managementNamespace as string | undefined) || DEFAULT_PROBE_NAMESPACE;
    await withDeadline(
      client.core.listNamespacedService({ namespace, labelSelector: "app=vcluster", limit: 1 }),
      timeoutMs,
      server,
    );
    return {
      phase: "Initialized",
      online: true,
      reason: "Connected",
      message: `connected to Kubernetes ${version.gitVersion} at ${server}`,
    };
  } catch (err) {
    const e = err instanceof ClusterConnectionError ? err : classifyError(err, server);
    return { phase: "Failed", online: false, reason: e.reason, message: e.message };
  }
}
