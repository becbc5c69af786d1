import type { KubeObject } from "../api/object.js";
import { KEY_HASH_PREFIX } from "../kinds/owned-access-key/owned-access-key.js";
import type { Informer } from "../registry/informer.js";

/**
 * In-memory indexes over access keys, users and teams, fed by informers: what each
 * request's authentication and identity need, without a database read.
 */
export class IdentityIndex {
  private readonly keysByHash = new Map<string, KubeObject>();

  constructor(
    readonly keys: Informer,
    readonly users: Informer,
    readonly teams: Informer,
  ) {
    keys.onChange((e) => {
      if (e.type === "upsert" && e.old) this.unindexKey(e.old);
      if (e.type === "delete") this.unindexKey(e.object);
      else this.indexKey(e.object);
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.keys.start(), this.users.start(), this.teams.start()]);
    this.keysByHash.clear();
    for (const k of this.keys.list()) this.indexKey(k);
  }

  stop(): void {
    this.keys.stop();
    this.users.stop();
    this.teams.stop();
  }

  private indexKey(k: KubeObject): void {
    const stored = k.spec?.key;
    if (typeof stored === "string" && stored.startsWith(KEY_HASH_PREFIX)) {
      this.keysByHash.set(stored.slice(KEY_HASH_PREFIX.length), k);
    }
  }

  private unindexKey(k: KubeObject): void {
    const stored = k.spec?.key;
    if (typeof stored === "string" && stored.startsWith(KEY_HASH_PREFIX)) {
      const h = stored.slice(KEY_HASH_PREFIX.length);
      if (this.keysByHash.get(h)?.metadata.uid === k.metadata.uid) this.keysByHash.delete(h);
    }
  }

  keyByHash(hash: string): KubeObject | undefined {
    return this.keysByHash.get(hash);
  }

  /** Waits until the indexes reflect every write so far (a key created a moment ago is found). */
  async sync(): Promise<void> {
    await Promise.all([this.keys.sync(), this.users.sync(), this.teams.sync()]);
  }

  user(name: string): KubeObject | undefined {
    return this.users.get(undefined, name);
  }

  team(name: string): KubeObject | undefined {
    return this.teams.get(undefined, name);
  }

  /** Teams a user belongs to: named in spec.users, or sharing one of the user's groups. */
  teamsOfUser(userName: string, userGroups: readonly string[]): KubeObject[] {
    const groups = new Set(userGroups);
    return this.teams.list().filter((t) => {
      const members = (t.spec?.users as string[] | undefined) ?? [];
      if (members.includes(userName)) return true;
      return ((t.spec?.groups as string[] | undefined) ?? []).some((g) => groups.has(g));
    });
  }
}
