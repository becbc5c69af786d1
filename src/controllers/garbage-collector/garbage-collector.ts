import { ApiError } from "../../api/errors.js";
import type { KubeObject, OwnerReference } from "../../api/object.js";
import type { EventRecorder } from "../../events/event-recorder.js";
import { recordGarbageCollected } from "../../events/messages.js";
import { deletionDeadline, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, readyToRemove } from "../../registry/deletion.js";
import type { Informer, InformerEvent } from "../../registry/informer.js";
import { resourcePrefix } from "../../registry/keys.js";
import type { PropagationPolicy } from "../../registry/options.js";
import type { Registry } from "../../registry/registry.js";
import { systemContext } from "../../registry/request-context.js";
import type { ResourceType } from "../../registry/resource-type.js";
import type { SharedInformers } from "../../registry/shared-informers.js";
import type { Store } from "../../registry/store.js";
import { type ControllerLog, failureLogging, silentLog } from "../controller-log.js";
import { WorkQueue } from "../work-queue.js";

export interface GarbageCollectorOptions {
  now?: () => Date;
  log?: ControllerLog;
  /** Reports each object it deletes (src/events). */
  events?: EventRecorder;
}

/** An object's identity in the collector: `Kind/namespace/name`. */
type ItemKey = string;

interface Kind {
  rt: ResourceType;
  store: Store;
  informer: Informer;
}

/**
 * The garbage collector (kube-controller-manager's, inside the server). It watches every
 * stored kind, keeps an owner-uid → dependents index, and:
 *  - deletes an object all of whose owners are gone (by uid: a new object with the owner's
 *    name does not count), and drops references to gone owners when other owners remain;
 *  - finishes Foreground deletions: deletes the owner's dependents and removes the
 *    `foregroundDeletion` finalizer once no dependent with blockOwnerDeletion is left;
 *  - finishes Orphan deletions: strips the ownerReference from every dependent, then
 *    removes the `orphan` finalizer;
 *  - removes terminating objects without finalizers when their grace period ends.
 * Its state is rebuilt from the store on start, so a restart mid-deletion finishes the work.
 * Owner existence is always checked against the store itself, never only the cache.
 *
 * Events queue object keys (`Kind/namespace/name`) in a WorkQueue (work-queue.ts), processed
 * one at a time; a failure is retried with backoff, a grace period's end is an addAfter.
 */
export class GarbageCollector {
  private readonly kinds = new Map<string, Kind>();
  /** owner uid → dependents' keys. */
  private readonly dependents = new Map<string, Set<ItemKey>>();
  /** dependent key → the owner uids it was indexed under. */
  private readonly ownersOf = new Map<ItemKey, string[]>();
  /** Every kind an ownerReference has named since start (never shrinks: a cheap, safe filter). */
  private readonly ownerKinds = new Set<string>();
  private queue?: WorkQueue<ItemKey>;
  private unsubscribe: Array<() => void> = [];
  private readonly now: () => Date;
  private readonly log: ControllerLog;

  constructor(
    private readonly registry: Registry,
    private readonly informers: SharedInformers,
    private readonly options: GarbageCollectorOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.log = options.log ?? silentLog;
  }

  async start(): Promise<void> {
    this.queue = new WorkQueue<ItemKey>({
      process: (key) => this.process(key),
      ...failureLogging(this.log, "garbage-collector"),
    });
    this.dependents.clear();
    this.ownersOf.clear();
    for (const rt of this.registry.resourceTypes()) {
      if (rt.virtualCreate) continue;
      const store = this.registry.store(rt.plural);
      const informer = this.informers.for(rt.plural);
      this.unsubscribe.push(informer.onChange((e) => this.observe(rt.kind, e)));
      this.kinds.set(rt.kind, { rt, store, informer });
    }
    await Promise.all([...this.kinds.values()].map((k) => k.informer.synced()));
    // Rebuild: index and look at every object that has owners or is being deleted. The stored
    // bytes of any other object contain neither key, and it is never parsed (100,000 objects
    // parsed at start cost seconds and hundreds of MiB).
    for (const { rt, informer } of this.kinds.values()) {
      for (const obj of informer.listWhere(mayMatter)) {
        this.index(rt.kind, obj);
        this.enqueueIfActionable(rt.kind, obj);
      }
    }
  }

  async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    await this.queue?.shutdown();
    this.kinds.clear();
  }

  /** Items waiting to be checked (a metric). */
  get queueDepth(): number {
    return this.queue?.length ?? 0;
  }

  /** Resolves when nothing is queued or being processed (for tests). */
  idle(): Promise<void> {
    return this.queue?.idle() ?? Promise.resolve();
  }

  /** Keys of the dependents indexed under an owner uid. */
  dependentsOf(uid: string): string[] {
    return [...(this.dependents.get(uid) ?? [])];
  }

  // ---- events and the index --------------------------------------------------------------

  private observe(kind: string, e: InformerEvent): void {
    if (e.type === "upsert" && this.concernsNobody(kind, e)) return;
    const key = keyOf(kind, e.object);
    if (e.type === "delete") {
      this.unindex(key);
    } else {
      this.index(kind, e.object);
      this.enqueueIfActionable(kind, e.object);
    }
    // Whoever depends on this object, and whoever it depends on, may need another look.
    for (const dep of this.dependents.get(e.object.metadata.uid ?? "") ?? []) this.enqueue(dep);
    for (const ref of e.object.metadata.ownerReferences ?? []) {
      const owner = this.kinds.get(ref.kind);
      if (owner)
        this.enqueue(itemKey(ref.kind, owner.rt.namespaced ? e.object.metadata.namespace : undefined, ref.name));
    }
  }

  /**
   * An upsert the collector can pass over without parsing the object (most writes): it has no
   * owners and is not being deleted (its bytes hold neither key), it had no owners indexed
   * before, and no dependent ever named an owner of its kind.
   */
  private concernsNobody(kind: string, e: InformerEvent): boolean {
    if (this.ownerKinds.has(kind) || mayMatter(e.bytes)) return false;
    const k = this.kinds.get(kind);
    if (!k) return false;
    const rest = e.key.slice(resourcePrefix(k.rt).length);
    const slash = k.rt.namespaced ? rest.indexOf("/") : -1;
    const key = slash < 0 ? itemKey(kind, undefined, rest) : itemKey(kind, rest.slice(0, slash), rest.slice(slash + 1));
    return !this.ownersOf.has(key);
  }

  /** Only objects being deleted or with owners have anything for the collector to do. */
  private enqueueIfActionable(kind: string, obj: KubeObject): void {
    if (obj.metadata.deletionTimestamp || (obj.metadata.ownerReferences ?? []).length > 0) {
      this.enqueue(keyOf(kind, obj));
    }
  }

  private index(kind: string, obj: KubeObject): void {
    const key = keyOf(kind, obj);
    for (const uid of this.ownersOf.get(key) ?? []) this.dependents.get(uid)?.delete(key);
    for (const ref of obj.metadata.ownerReferences ?? []) if (ref.kind) this.ownerKinds.add(ref.kind);
    const uids = (obj.metadata.ownerReferences ?? []).map((r) => r.uid).filter(Boolean);
    if (uids.length) this.ownersOf.set(key, uids);
    else this.ownersOf.delete(key);
    for (const uid of uids) {
      const set = this.dependents.get(uid) ?? new Set<ItemKey>();
      this.dependents.set(uid, set);
      set.add(key);
    }
  }

  private unindex(key: ItemKey): void {
    for (const owner of this.ownersOf.get(key) ?? []) {
      const set = this.dependents.get(owner);
      set?.delete(key);
      if (set?.size === 0) this.dependents.delete(owner);
    }
    this.ownersOf.delete(key);
  }

  private enqueue(key: ItemKey): void {
    this.queue?.add(key);
  }

  // ---- one object ------------------------------------------------------------------------

  private async process(key: ItemKey): Promise<void> {
    const { kind, namespace, name } = parseKey(key);
    const k = this.kinds.get(kind);
    if (!k) return;
    const obj = await k.store.read(namespace, name);
    if (!obj) return;
    if (obj.metadata.deletionTimestamp) {
      await this.processTerminating(k, obj);
      return;
    }
    if ((obj.metadata.ownerReferences ?? []).length) await this.processDependent(k, obj);
  }

  private async processTerminating(k: Kind, obj: KubeObject): Promise<void> {
    const finalizers = obj.metadata.finalizers ?? [];
    const uid = obj.metadata.uid!;
    if (finalizers.includes(ORPHAN_FINALIZER)) {
      for (const dep of this.dependentsOf(uid)) {
        const d = this.kindAndName(dep);
        if (!d) continue;
        await d.kind.store.guaranteedUpdate(systemContext(), d.namespace, d.name, (o) => {
          const refs = o.metadata.ownerReferences ?? [];
          if (!refs.some((r) => r.uid === uid)) return undefined;
          const kept = refs.filter((r) => r.uid !== uid);
          if (kept.length) o.metadata.ownerReferences = kept;
          else delete o.metadata.ownerReferences;
          return o;
        });
      }
      await this.removeFinalizer(k, obj, ORPHAN_FINALIZER);
      return;
    }
    if (finalizers.includes(FOREGROUND_FINALIZER)) {
      let blocking = 0;
      for (const dep of this.dependentsOf(uid)) {
        const d = this.kindAndName(dep);
        if (!d) continue;
        const live = await d.kind.store.read(d.namespace, d.name);
        const ref = live?.metadata.ownerReferences?.find((r) => r.uid === uid);
        if (!live || !ref) continue;
        if (!live.metadata.deletionTimestamp) {
          // A dependent that has dependents of its own is deleted in the foreground too.
          const policy: PropagationPolicy = this.dependents.get(live.metadata.uid ?? "")?.size
            ? "Foreground"
            : "Background";
          await this.deleteObject(d.kind, live, policy);
        }
        if (ref.blockOwnerDeletion === true && (await d.kind.store.read(d.namespace, d.name))) blocking++;
      }
      // Remaining blocking dependents will trigger another look when they go.
      if (blocking === 0) await this.removeFinalizer(k, obj, FOREGROUND_FINALIZER);
      return;
    }
    if (finalizers.length === 0) {
      if (readyToRemove(obj, this.now())) await this.deleteObject(k, obj, "Background");
      else this.lookAgainAtDeadline(keyOf(k.rt.kind, obj), obj);
    }
  }

  private async processDependent(k: Kind, obj: KubeObject): Promise<void> {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of obj.metadata.ownerReferences ?? []) {
      const state = await this.ownerState(ref, obj.metadata.namespace);
      if (state === "absent") dangling.push(ref);
      else if (state === "waiting") waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // Other owners remain: only the references to gone (or foreground-deleting) owners go.
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      await k.store.guaranteedUpdate(systemContext(), obj.metadata.namespace, obj.metadata.name!, (o) => {
        if (o.metadata.uid !== obj.metadata.uid) return undefined;
        const kept = (o.metadata.ownerReferences ?? []).filter((r) => !drop.has(r.uid));
        if (kept.length === (o.metadata.ownerReferences ?? []).length) return undefined;
        o.metadata.ownerReferences = kept;
        return o;
      });
      return;
    }
    await this.deleteObject(k, obj, waiting.length > 0 ? "Foreground" : "Background");
  }

  /** "absent": no object with that uid; "waiting": it is being deleted in the foreground. */
  private async ownerState(
    ref: OwnerReference,
    namespace: string | undefined,
  ): Promise<"absent" | "waiting" | "solid"> {
    const k = this.kinds.get(ref.kind);
    // An owner of a kind this server does not store cannot be checked: never collect on a guess.
    if (!k || ref.apiVersion !== `${k.rt.group}/${k.rt.version}`) return "solid";
    const owner = await k.store.read(k.rt.namespaced ? namespace : undefined, ref.name);
    if (!owner || owner.metadata.uid !== ref.uid) return "absent";
    if (owner.metadata.deletionTimestamp && (owner.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER)) {
      return "waiting";
    }
    return "solid";
  }

  private async deleteObject(k: Kind, obj: KubeObject, policy: PropagationPolicy): Promise<void> {
    try {
      await k.store.delete(systemContext(), obj.metadata.namespace, obj.metadata.name!, {
        dryRun: false,
        propagationPolicy: policy,
        preconditions: { uid: obj.metadata.uid },
      });
      recordGarbageCollected(this.options.events, obj);
    } catch (err) {
      // Gone already, or replaced by a new object of the same name: nothing to do.
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }

  private async removeFinalizer(k: Kind, obj: KubeObject, finalizer: string): Promise<void> {
    await k.store.guaranteedUpdate(systemContext(), obj.metadata.namespace, obj.metadata.name!, (o) => {
      if (o.metadata.uid !== obj.metadata.uid || !o.metadata.finalizers?.includes(finalizer)) return undefined;
      o.metadata.finalizers = o.metadata.finalizers.filter((f) => f !== finalizer);
      return o;
    });
  }

  /** Looks at a terminating object again when its grace period ends (a little after: clocks). */
  private lookAgainAtDeadline(key: ItemKey, obj: KubeObject): void {
    const deadline = deletionDeadline(obj);
    if (deadline === undefined) return;
    this.queue?.addAfter(key, Math.max(deadline - this.now().getTime(), 0) + 50);
  }

  private kindAndName(key: ItemKey): { kind: Kind; namespace: string | undefined; name: string } | undefined {
    const { kind, namespace, name } = parseKey(key);
    const k = this.kinds.get(kind);
    return k ? { kind: k, namespace, name } : undefined;
  }
}

const OWNER_REFERENCES = Buffer.from('"ownerReferences"');
const DELETION_TIMESTAMP = Buffer.from('"deletionTimestamp"');

/** Whether stored bytes may hold owners or a deletion timestamp; false is certain. */
function mayMatter(bytes: Buffer): boolean {
  return bytes.includes(OWNER_REFERENCES) || bytes.includes(DELETION_TIMESTAMP);
}

function keyOf(kind: string, obj: KubeObject): ItemKey {
  return itemKey(kind, obj.metadata.namespace, obj.metadata.name!);
}

function itemKey(kind: string, namespace: string | undefined, name: string): ItemKey {
  return `${kind}/${namespace ?? ""}/${name}`;
}

function parseKey(key: ItemKey): { kind: string; namespace: string | undefined; name: string } {
  const [kind, namespace, ...rest] = key.split("/");
  return { kind: kind!, namespace: namespace || undefined, name: rest.join("/") };
}
