import { type ApiError, errors } from "../api/errors.js";
import { type KubeObject, statusOf } from "../api/object.js";
import type { VirtualClusterInstanceStatus } from "../kinds/virtual-cluster-instance/virtual-cluster-instance.js";
import type { Registry } from "../registry/registry.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import { wakeUp } from "../virtualclusters/sleep-state.js";

/**
 * A request through the gateway to a sleeping virtual cluster wakes it and waits for it
 * (docs/gateway.md, "Sleeping virtual clusters"): status.sleep is cleared, the status controller
 * on the elected replica scales the workload back, and the request goes on once the instance is
 * Ready, or is answered 503 with Retry-After when it is not within `limitMs`.
 */
export class VirtualClusterWaker {
  constructor(
    private readonly registry: Registry,
    private readonly informers: SharedInformers,
    private readonly limitMs: number,
  ) {}

  /** Resolves at once for an instance that is awake; otherwise wakes it and waits (see above). */
  async awake(instance: KubeObject): Promise<void> {
    if (!isAsleep(instance)) return;
    const namespace = instance.metadata.namespace!;
    const name = instance.metadata.name!;
    const informer = this.informers.for("virtualclusterinstances");
    await informer.synced();
    let done: (ready: boolean) => void = () => {};
    const ready = new Promise<boolean>((resolve) => {
      done = resolve;
    });
    const check = (o: KubeObject | undefined) => {
      if (!o)
        done(true); // deleted: the forwarding answers for it
      else if (!isAsleep(o) && statusOf<VirtualClusterInstanceStatus>(o).phase !== "Pending") done(true);
    };
    const unsubscribe = informer.onChange((e) => {
      if (e.object.metadata.namespace !== namespace || e.object.metadata.name !== name) return;
      check(e.type === "delete" ? undefined : e.object);
    });
    const timer = setTimeout(() => done(false), this.limitMs);
    try {
      await wakeUp(this.registry, namespace, name);
      check(informer.get(namespace, name));
      if (await ready) return;
    } finally {
      clearTimeout(timer);
      unsubscribe();
    }
    const retryAfterSeconds = Math.max(1, Math.ceil(this.limitMs / 1000));
    throw wakingUp(namespace, name, retryAfterSeconds);
  }
}

/** Meant to sleep, asleep, or on its way back: a request to it would fail. */
function isAsleep(instance: KubeObject): boolean {
  const status = statusOf<VirtualClusterInstanceStatus>(instance);
  return status.sleep !== undefined || status.phase === "Sleeping" || status.reason === "WakingUp";
}

function wakingUp(namespace: string, name: string, retryAfterSeconds: number): ApiError {
  return errors.unavailableRetryAfter(
    `virtual cluster ${namespace}/${name} was asleep and is waking up; try again in ${retryAfterSeconds} s`,
    retryAfterSeconds,
  );
}
