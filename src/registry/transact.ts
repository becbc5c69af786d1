import { errors } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { isStorageError } from "../storage/errors.js";
import type { Storage, TxnOp } from "../storage/interface.js";
import type { WriteOptions } from "./options.js";
import type { RequestContext } from "./request-context.js";
import type { KeptWrite } from "./resource-type.js";
import { storageToApi } from "./storage-errors.js";
import type { Store } from "./store.js";

/** One write of a registry transaction. */
export type TransactOp =
  /**
   * Creates an object through the whole write pipeline (store.ts); `status` replaces the cleared
   * one; `replacing` is an object a delete of the same transaction removes, whose place it takes
   * (a move's source: what it holds passes to the new object, AdmissionAttributes.replacing).
   */
  | {
      type: "create";
      resource: string;
      namespace: string | undefined;
      body: KubeObject;
      options: WriteOptions;
      status?: Record<string, unknown>;
      replacing?: KubeObject;
    }
  /** Deletes an object at the resourceVersion it was read at (a move's source). */
  | { type: "delete"; resource: string; object: KubeObject }
  /** Creates a kept entry; `onExists` is the error when one is kept for the id already. */
  | ({ type: "keep" } & KeptWrite);

/** What a transaction uses of a kind's Store. */
type KindStore = Pick<Store, "prepareCreate" | "key" | "gr">;

/**
 * What a transaction needs of the registry: each kind's store (to run its write pipeline) and
 * the storage to commit to. An interface, so that this file never imports the registry that
 * calls it.
 */
export interface TransactionStores {
  store(resource: string): KindStore;
  readonly storage: Pick<Storage, "txn">;
}

/**
 * Several writes that happen together or not at all (an import writes an instance and its
 * CA; a move deletes an instance in one namespace and creates it in another). Every create runs
 * the same pipeline as a single create, and the storage error of the transaction is mapped to
 * an API error here, naming the write that failed. Returns the created objects, in order.
 */
export async function transact(
  registry: TransactionStores,
  ctx: RequestContext,
  ops: readonly TransactOp[],
): Promise<KubeObject[]> {
  checkReplacedAreDeleted(ops);
  const created: KubeObject[] = [];
  const planned: Array<{ op: TransactOp; txn: TxnOp; store?: KindStore; name: string; guard?: boolean }> = [];
  for (const op of ops) {
    if (op.type === "keep") {
      planned.push({ op, txn: op.keys.createOp(op.id, op.value), name: op.id });
      continue;
    }
    const store = registry.store(op.resource);
    if (op.type === "create") {
      const prepared = await store.prepareCreate(ctx, op.namespace, op.body, op.options, op.status, op.replacing);
      created.push(prepared.object);
      planned.push({
        op,
        store,
        txn: { type: "create", key: prepared.key, value: prepared.value },
        name: prepared.object.metadata.name!,
      });
      // What the kind writes with the object (its CA) goes into the same transaction.
      for (const keep of prepared.alongside) {
        planned.push({ op: { type: "keep", ...keep }, txn: keep.keys.createOp(keep.id, keep.value), name: keep.id });
      }
      // What admission decided from what it read (a project quota) commits with the object (write-guards.ts).
      for (const guard of prepared.guards) {
        planned.push({ op, store, txn: guard.op, name: prepared.object.metadata.name!, guard: true });
      }
    } else {
      const m = op.object.metadata;
      const txn: TxnOp = {
        type: "delete",
        key: store.key(m.namespace, m.name!),
        expectedModRevision: Number(m.resourceVersion),
      };
      planned.push({ op, store, txn, name: m.name! });
    }
  }
  try {
    const { revision } = await registry.storage.txn(planned.map((p) => p.txn));
    for (const obj of created) obj.metadata.resourceVersion = String(revision);
    return created;
  } catch (err) {
    if (!isStorageError(err)) throw err;
    const failed = planned.find((p) => p.txn.key === err.key);
    if (failed?.op.type === "keep" && isStorageError(err, "KeyExists")) throw failed.op.onExists();
    if (failed?.guard && failed.store) {
      throw errors.conflict(failed.store.gr, failed.name, "another create changed what admission counted; try again");
    }
    throw storageToApi(err, failed?.store?.gr ?? { group: "", resource: "" }, failed?.name ?? "");
  }
}

/**
 * A create's `replacing` lets it take what the replaced object holds, so the transaction must
 * delete that very object, at the version read (a programming error otherwise, never a caller's).
 */
function checkReplacedAreDeleted(ops: readonly TransactOp[]): void {
  for (const op of ops) {
    if (op.type !== "create" || !op.replacing) continue;
    const replaced = op.replacing.metadata;
    const deleted = ops.some(
      (d) =>
        d.type === "delete" &&
        d.resource === op.resource &&
        d.object.metadata.namespace === replaced.namespace &&
        d.object.metadata.name === replaced.name &&
        d.object.metadata.resourceVersion === replaced.resourceVersion,
    );
    if (!deleted) throw errors.internal("a create replaces an object its transaction does not delete");
  }
}
