import type { KubeObject } from "../api/object.js";
import type { Storage } from "../storage/interface.js";
import type { AdmissionChain } from "./admission.js";
import { KeptKeys, type KeptValueCipher } from "./kept-keys.js";
import { REGISTRY_PREFIX } from "./keys.js";
import type { RequestContext } from "./request-context.js";
import { READ_VERBS, type ResourceType } from "./resource-type.js";
import { Store } from "./store.js";
import { StoredVersions } from "./stored-versions.js";
import { type TransactOp, transact } from "./transact.js";

/** All kinds served, each with its generic store, found by plural name. */
export class Registry {
  private readonly byPlural = new Map<string, { rt: ResourceType; store: Store }>();
  private readonly byKind = new Map<string, { rt: ResourceType; store: Store }>();
  /**
   * What this registry found of each stored version, shared by its stores and by no one else
   * (stored-versions.ts): another registry over the same storage checks for itself.
   */
  readonly versions = new StoredVersions();

  constructor(
    readonly storage: Storage,
    resourceTypes: readonly ResourceType[],
    /** Every write of every kind goes through it (store.ts describes the pipeline). */
    admission: AdmissionChain,
    now?: () => Date,
  ) {
    for (const rt of resourceTypes) {
      if (rt.readerFilter && rt.verbs.some((v) => !READ_VERBS.includes(v)))
        throw new Error(`${rt.plural}: a kind with a readerFilter serves only ${READ_VERBS.join(", ")}`);
      const entry = { rt, store: new Store(rt, { storage, admission, now, versions: this.versions }) };
      this.byPlural.set(rt.plural, entry);
      this.byKind.set(rt.kind, entry);
    }
  }

  resourceTypes(): ResourceType[] {
    return [...this.byPlural.values()].map((e) => e.rt);
  }

  stores(): Store[] {
    return [...this.byPlural.values()].map((e) => e.store);
  }

  find(plural: string): { rt: ResourceType; store: Store } | undefined {
    return this.byPlural.get(plural);
  }

  /** The store of a kind; throws when the kind is not registered (a programming error). */
  store(plural: string): Store {
    const e = this.byPlural.get(plural);
    if (!e) throw new Error(`no resource ${plural}`);
    return e.store;
  }

  storeOfKind(kind: string): Store | undefined {
    return this.byKind.get(kind)?.store;
  }

  /** Whether no object of any kind is stored (a new installation). */
  async isEmpty(): Promise<boolean> {
    return (await this.storage.list(REGISTRY_PREFIX, { limit: 1 })).items.length === 0;
  }

  /** Writes that happen together or not at all, each through the write pipeline (transact.ts). */
  transact(ctx: RequestContext, ops: readonly TransactOp[]): Promise<KubeObject[]> {
    return transact(this, ctx, ops);
  }

  /** The registry's key space `name` for server-internal data no resource serves (kept-keys.ts). */
  keptKeys(name: string, cipher?: KeptValueCipher): KeptKeys {
    return new KeptKeys(this.storage, name, cipher);
  }
}
