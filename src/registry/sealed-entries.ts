import { createHash } from "node:crypto";
import type { KeptKeys, KeptValueCipher } from "./kept-keys.js";
import type { Registry } from "./registry.js";

/** What one entry holds in storage: its expiry (plain, so a sweep needs no key) and its value, encrypted. */
interface StoredEntry {
  expiresAt: number;
  sealed: string;
}

/**
 * Short-lived secrets that must survive from one request to the next on whichever replica answers
 * it (a sign-in in progress, a CLI's one-time code, a web console session), kept in one of the registry's internal key
 * spaces (kept-keys.ts: no resource serves it, and backups leave it out).
 *
 * - Found by the SHA-256 of the handle the browser or CLI holds, never by the handle itself: what
 *   is stored cannot be used to finish someone's sign-in.
 * - The value is encrypted with the server's encryption keys (the PKCE verifier and the issued key
 *   must be read back), bound to its entry so a copy under another handle does not open.
 * - Single use when taken: `take` deletes it at the revision it was read at, so of two callbacks
 *   with one handle, on one replica or two, only one gets it. (`read` leaves it, for sessions.)
 * - Expiring: an entry past its time is refused when taken, and removed by `sweep`.
 */
export class SealedEntries<V> {
  readonly #keys: KeptKeys;

  constructor(
    registry: Registry,
    space: string,
    private readonly cipher: KeptValueCipher,
  ) {
    this.#keys = registry.keptKeys(space);
  }

  /** Where the entries are in storage. */
  get prefix(): string {
    return this.#keys.prefix;
  }

  /** Keeps `value` under the hash of `handle` until `expiresAt` (ms since the epoch). */
  async put(handle: string, value: V, expiresAt: number): Promise<void> {
    const id = entryId(handle);
    const sealed = this.cipher.encrypt(JSON.stringify({ id, value }));
    const entry: StoredEntry = { expiresAt, sealed };
    await this.#keys.create(id, JSON.stringify(entry));
  }

  /** The value kept for `handle`, removed as it is read; undefined when unknown, taken already, or expired. */
  async take(handle: string, now = Date.now()): Promise<V | undefined> {
    const id = entryId(handle);
    const kept = await this.#keys.get(id);
    // Another replica took it between the read and the delete: it is theirs.
    if (!kept || !(await this.#keys.removeAt(id, kept.revision))) return undefined;
    const entry = parseEntry(kept.value);
    if (!entry || entry.expiresAt <= now) return undefined;
    return this.open(id, entry.sealed);
  }

  private open(id: string, sealed: string): V | undefined {
    try {
      const opened = JSON.parse(this.cipher.decrypt(sealed)) as { id?: unknown; value: V };
      return opened.id === id ? opened.value : undefined;
    } catch {
      // Encrypted with a key no longer loaded, or altered: as good as unknown.
      return undefined;
    }
  }

  /**
   * The value kept for `handle`, left in place (for entries used many times, as console sessions):
   * with its expiry and the revision it was read at; undefined when unknown or expired.
   */
  async read(handle: string, now = Date.now()): Promise<ReadEntry<V> | undefined> {
    const id = entryId(handle);
    const kept = await this.#keys.get(id);
    const entry = kept && parseEntry(kept.value);
    if (!kept || !entry || entry.expiresAt <= now) return undefined;
    const value = this.open(id, entry.sealed);
    return value === undefined ? undefined : { value, expiresAt: entry.expiresAt, revision: kept.revision };
  }

  /** Moves the expiry of the entry read at `revision` (the value unchanged); false when it changed or is gone. */
  async extend(handle: string, revision: number, expiresAt: number): Promise<boolean> {
    const id = entryId(handle);
    const kept = await this.#keys.get(id);
    const entry = kept && parseEntry(kept.value);
    if (!kept || !entry || kept.revision !== revision) return false;
    return this.#keys.replaceAt(id, JSON.stringify({ expiresAt, sealed: entry.sealed }), revision);
  }

  /** Removes the entry kept for `handle`, whatever its state; false when there was none. */
  async remove(handle: string): Promise<boolean> {
    return this.#keys.remove(entryId(handle));
  }

  /** The value of every entry that opens, expired ones included until swept (for passes over them all). */
  async values(): Promise<V[]> {
    const values: V[] = [];
    for (const kept of await this.#keys.entries()) {
      const entry = parseEntry(kept.value);
      const value = entry && this.open(kept.id, entry.sealed);
      if (value !== undefined) values.push(value);
    }
    return values;
  }

  /**
   * Removes every entry whose value `match` picks (those that do not open are left to `sweep`).
   * Returns how many it removed. No method here changes an entry's value (`extend` moves only its
   * expiry), so an entry touched between the read and the removal still holds what matched: it
   * goes too, where a removal at the read revision would miss a session in use.
   */
  async removeWhere(match: (value: V) => boolean): Promise<number> {
    let removed = 0;
    for (const kept of await this.#keys.entries()) {
      const entry = parseEntry(kept.value);
      const value = entry && this.open(kept.id, entry.sealed);
      if (value === undefined || !match(value)) continue;
      if (await this.#keys.remove(kept.id)) removed++;
    }
    return removed;
  }

  /** Reports the ids (entryId) of entries written or removed on any replica, from when it resolves (KeptKeys.watchIds). */
  watchIds(changed: (ids: string[]) => void, failed: (err: Error) => void): ReturnType<KeptKeys["watchIds"]> {
    return this.#keys.watchIds(changed, failed);
  }

  /**
   * Removes every expired entry and, beyond `max` entries, those that expire first (a flood of
   * sign-ins that never come back cannot grow the store without bound). Returns how many it removed.
   */
  async sweep(now: number, max: number): Promise<number> {
    const entries = (await this.#keys.entries())
      .map((e) => ({ ...e, expiresAt: parseEntry(e.value)?.expiresAt ?? 0 }))
      .sort((a, b) => a.expiresAt - b.expiresAt);
    const excess = entries.length - max;
    let removed = 0;
    for (const [index, entry] of entries.entries()) {
      if (entry.expiresAt > now && index >= excess) break;
      if (await this.#keys.removeAt(entry.id, entry.revision)) removed++;
    }
    return removed;
  }
}

/** What `read` answers. */
export interface ReadEntry<V> {
  value: V;
  expiresAt: number;
  revision: number;
}

/** The storage id of a handle: base64url(SHA-256). Handles are 256-bit random values, so no salt is needed. */
export function entryId(handle: string): string {
  return createHash("sha256").update(handle).digest("base64url");
}

function parseEntry(text: string): StoredEntry | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<StoredEntry>;
    return typeof parsed.expiresAt === "number" && typeof parsed.sealed === "string"
      ? { expiresAt: parsed.expiresAt, sealed: parsed.sealed }
      : undefined;
  } catch {
    return undefined;
  }
}
