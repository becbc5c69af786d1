/**
 * Test helper: a stand-in for the kube-scheduler and the kubelet of one node, for the tests' real
 * control plane (kube-control-plane.ts), which runs neither: no container can run on the test
 * machines. It does, through the API server's own endpoints, what those two would do for a pod
 * whose containers start and pass their readiness checks at once, as kwok (sigs.k8s.io/kwok)
 * does for its fake nodes:
 *
 * - registers a Node (status Ready) at start;
 * - binds every pod without a node to it (`pods/binding`, the scheduler's call);
 * - marks a pod on its node Running and Ready, each container running (`pods/status`, the
 *   kubelet's call), so the real controllers (StatefulSet, ReplicaSet) count it as ready and
 *   compute their own status from it;
 * - finishes a pod's graceful deletion once it has a deletionTimestamp (delete with grace 0, as
 *   the kubelet does once the containers stopped): without it a pod on a node stays Terminating
 *   forever, and a StatefulSet never scales down.
 *
 * It lists and watches every pod as the administrator, and lists again after the watch ends (an
 * API server stopped by a test and started again). Each pod is handled at most once at a time,
 * a failed call retried with backoff (the controllers' work queue).
 *
 * Why not kwok itself: built from the Go module proxy it needs the kube-scheduler too, which the
 * harness does not build; this is the part of both the tests need, in the language of the tests.
 */
import type { CoreV1Api, KubeConfig, V1Pod } from "@kubernetes/client-node";
import { WorkQueue } from "../../controllers/work-queue.js";

/** The node the stand-in registers and binds pods to, unless told another name. */
export const STAND_IN_NODE = "stand-in-node";
/** Wait before listing again after the watch ended or the list failed (the API server may be down). */
const RELIST_DELAY_MS = 500;

export class KubeletStandIn {
  /** The last version of each pod seen, by `namespace/name`: what the queue acts on. */
  private readonly pods = new Map<string, V1Pod>();
  private readonly queue: WorkQueue<string>;
  private watch?: AbortController;
  private stopped = false;
  private running?: Promise<void>;
  private wakeRelist?: () => void;

  private constructor(
    private readonly kubeConfig: KubeConfig,
    private readonly core: CoreV1Api,
    /** The Node the pods are bound to. */
    readonly nodeName: string,
  ) {
    this.queue = new WorkQueue<string>({ process: (key) => this.handle(key), concurrency: 4 });
  }

  /** Registers the node and starts handling pods; `kubeconfigPath` is an administrator's. */
  static async start(kubeconfigPath: string, nodeName = STAND_IN_NODE): Promise<KubeletStandIn> {
    const { CoreV1Api, KubeConfig } = await import("@kubernetes/client-node");
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    const standIn = new KubeletStandIn(kc, kc.makeApiClient(CoreV1Api), nodeName);
    await standIn.registerNode();
    standIn.running = standIn.listAndWatch();
    return standIn;
  }

  /** Stops watching and waits for the pods being handled; pods left are no longer looked after. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.watch?.abort();
    this.wakeRelist?.();
    await this.running;
    await this.queue.shutdown();
  }

  private async registerNode(): Promise<void> {
    const node = await this.core.createNode({
      body: { metadata: { name: this.nodeName, labels: { "kubernetes.io/hostname": this.nodeName } } },
    });
    const now = new Date();
    node.status = {
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "KubeletReady",
          message: "stand-in kubelet is posting ready status",
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
      ],
      capacity: { cpu: "32", memory: "256Gi", pods: "1000" },
      allocatable: { cpu: "32", memory: "256Gi", pods: "1000" },
    };
    await this.core.replaceNodeStatus({ name: this.nodeName, body: node });
  }

  private async listAndWatch(): Promise<void> {
    const { Watch } = await import("@kubernetes/client-node");
    while (!this.stopped) {
      try {
        const list = await this.core.listPodForAllNamespaces();
        const seen = new Set<string>();
        for (const pod of list.items) seen.add(this.observe(pod));
        for (const key of this.pods.keys()) if (!seen.has(key)) this.pods.delete(key);
        const ended = new Promise<void>((resolve) => {
          void new Watch(this.kubeConfig)
            .watch(
              "/api/v1/pods",
              { resourceVersion: list.metadata?.resourceVersion },
              (type, pod: V1Pod) => {
                if (type === "DELETED") this.pods.delete(keyOf(pod));
                else if (type === "ADDED" || type === "MODIFIED") this.observe(pod);
              },
              () => resolve(),
            )
            .then(
              (abort) => {
                this.watch = abort;
                if (this.stopped) abort.abort();
              },
              () => resolve(),
            );
        });
        await ended;
      } catch {
        // The API server is down or restarting: list again after the delay.
      }
      if (this.stopped) return;
      await new Promise<void>((resolve) => {
        this.wakeRelist = resolve;
        setTimeout(resolve, RELIST_DELAY_MS).unref();
      });
    }
  }

  /** Remembers the pod and queues it when something is left to do for it. */
  private observe(pod: V1Pod): string {
    const key = keyOf(pod);
    this.pods.set(key, pod);
    if (this.pendingWork(pod) !== undefined) this.queue.add(key);
    return key;
  }

  private pendingWork(pod: V1Pod): "finish-deletion" | "bind" | "start" | undefined {
    if (pod.metadata?.deletionTimestamp) {
      // The API server deletes a pod on no node at once; one on another node is not ours.
      return pod.spec?.nodeName === this.nodeName ? "finish-deletion" : undefined;
    }
    if (!pod.spec?.nodeName) return "bind";
    if (pod.spec.nodeName !== this.nodeName) return undefined;
    const ready = pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
    return pod.status?.phase === "Running" && ready ? undefined : "start";
  }

  private async handle(key: string): Promise<void> {
    const pod = this.pods.get(key);
    if (!pod || this.stopped) return;
    const name = pod.metadata!.name!;
    const namespace = pod.metadata!.namespace!;
    switch (this.pendingWork(pod)) {
      case "finish-deletion":
        await ignoring(404, () =>
          this.core.deleteNamespacedPod({
            name,
            namespace,
            gracePeriodSeconds: 0,
            body: { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata!.uid! } },
          }),
        );
        return;
      case "bind":
        // 409: bound meanwhile (the watch brings the new version); 404: deleted meanwhile.
        await ignoring([404, 409], () =>
          this.core.createNamespacedPodBinding({
            name,
            namespace,
            body: {
              metadata: { name, namespace },
              target: { apiVersion: "v1", kind: "Node", name: this.nodeName },
            },
          }),
        );
        return;
      case "start":
        await ignoring(404, () => this.start(name, namespace));
        return;
      case undefined:
        return;
    }
  }

  /** What the kubelet reports once every container started and passed its readiness check. */
  private async start(name: string, namespace: string): Promise<void> {
    const pod = await this.core.readNamespacedPod({ name, namespace });
    if (pod.metadata?.deletionTimestamp) return;
    const now = new Date();
    const condition = (type: string) => ({ type, status: "True", lastTransitionTime: now });
    pod.status = {
      ...pod.status,
      phase: "Running",
      hostIP: "127.0.0.1",
      startTime: pod.status?.startTime ?? now,
      conditions: [
        condition("PodReadyToStartContainers"),
        condition("Initialized"),
        condition("Ready"),
        condition("ContainersReady"),
        condition("PodScheduled"),
      ],
      containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
        name: c.name,
        image: c.image ?? "",
        imageID: "",
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: now } },
      })),
    };
    // A 409 (the pod changed since it was read) is retried by the queue with the newer version.
    await this.core.replaceNamespacedPodStatus({ name, namespace, body: pod });
  }
}

function keyOf(pod: V1Pod): string {
  return `${pod.metadata?.namespace}/${pod.metadata?.name}`;
}

/** Runs `call`, treating an answer with one of `codes` as done. */
async function ignoring(codes: number | number[], call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === "number" && ([] as number[]).concat(codes).includes(code)) return;
    throw err;
  }
}
