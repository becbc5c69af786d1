import { isStorageError } from "../storage/errors.js";
import type { Storage, TxnOp, Watcher } from "../storage/interface.js";

/** Under this prefix no resource is served: what is kept here is never readable through the API. */
export const KEPT_KEYS_PREFIX = "/platform-internal/";

/** Encrypts and decrypts kept values at rest (the SharedSecret data keys, in the server). */
export interface KeptValueCipher {
  encrypt(plaintext: string): string;
  decrypt(stored: string): string;
}

/**
 * A key space the registry keeps for server-internal data that belongs to no resource (the
 * CA keys of imported virtual clusters): string values by id, encrypted at rest when a cipher
 * is given. Entries are created in a registry transaction (registry.transact, a `keep` op),
 * read by id, and removed only at the revision they were read at.
 */
export class KeptKeys {
  readonly prefix: string;

  constructor(
    private readonly storage: Storage,
    name: string,
    private readonly cipher?: KeptValueCipher,
  ) {
    this.prefix = `${KEPT_KEYS_PREFIX}${name}/`;
  }

  key(id: string): string {
    return `${this.prefix}${id}`;
  }

  async get(id: string): Promise<{ value: string; revision: number } | undefined> {
    const kv = await this.storage.get(this.key(id));
    return kv && { value: this.open(kv.value), revision: kv.modRevision };
  }

  /** Ids and revisions of every entry. */
  async list(): Promise<Array<{ id: string; revision: number }>> {
    const { items } = await this.storage.list(this.prefix);
    return items.map((kv) => ({ id: kv.key.slice(this.prefix.length), revision: kv.modRevision }));
  }

  /** Ids, values and revisions of every entry (for a sweep that reads what it removes). */
  async entries(): Promise<Array<{ id: string; value: string; revision: number }>> {
    const { items } = await this.storage.list(this.prefix);
    return items.map((kv) => ({
      id: kv.key.slice(this.prefix.length),
      value: this.open(kv.value),
      revision: kv.modRevision,
    }));
  }

  /** Creates an entry on its own, outside a registry transaction; StorageError "KeyExists" when it exists. */
  async create(id: string, value: string): Promise<void> {
    await this.storage.create(this.key(id), this.seal(value));
  }

  /** Removes an entry if it is still at `revision`; false when it changed or is gone meanwhile. */
  async removeAt(id: string, revision: number): Promise<boolean> {
    try {
      await this.storage.delete(this.key(id), revision);
      return true;
    } catch (err) {
      if (isStorageError(err, "Conflict") || isStorageError(err, "NotFound")) return false;
      throw err;
    }
  }

  /** Replaces an entry if it is still at `revision`; false when it changed or is gone meanwhile. */
  async replaceAt(id: string, value: string, revision: number): Promise<boolean> {
    try {
      await this.storage.update(this.key(id), this.seal(value), revision);
      return true;
    } catch (err) {
      if (isStorageError(err, "Conflict") || isStorageError(err, "NotFound")) return false;
      throw err;
    }
  }

  /** Removes an entry whatever its revision; false when there was none. */
  async remove(id: string): Promise<boolean> {
    try {
      await this.storage.delete(this.key(id));
      return true;
    } catch (err) {
      if (isStorageError(err, "NotFound")) return false;
      throw err;
    }
  }

  /**
   * Calls `changed` with the id of every entry written or removed from now on (on any replica
   * sharing the store), until closed or `failed` (no more calls follow then). Resolves once
   * every change after the call is certain to be reported.
   */
  async watchIds(changed: (ids: string[]) => void, failed: (err: Error) => void): Promise<Watcher> {
    const afterRevision = await this.storage.currentRevision();
    return this.storage.watch(
      this.prefix,
      { afterRevision },
      {
        onEvents: (events) => changed(events.map((e) => e.kv.key.slice(this.prefix.length))),
        onError: failed,
      },
    );
  }

  /** The storage operation creating an entry (for registry.transact only). */
  createOp(id: string, value: string): TxnOp {
    return { type: "create", key: this.key(id), value: this.seal(value) };
  }

  /** The storage operation replacing an entry still at `revision` (for a write guard: write-guards.ts). */
  updateOp(id: string, value: string, revision: number): TxnOp {
    return { type: "update", key: this.key(id), value: this.seal(value), expectedModRevision: revision };
  }

  private seal(value: string): Buffer {
    return Buffer.from(this.cipher ? this.cipher.encrypt(value) : value);
  }

  private open(stored: Buffer): string {
    const text = stored.toString("utf8");
    return this.cipher ? this.cipher.decrypt(text) : text;
  }
}
