import type { KubeObject } from "../api/object.js";
import { storedKeyHash } from "../kinds/owned-access-key/owned-access-key.js";
import type { Informer, InformerEvent } from "../registry/informer.js";
import { keyUpdateKeepsIdentities, updateKeepsIdentities } from "./identity-changes.js";
import { keyDependency, stringList, teamChangeDependencies, userDependency } from "./identity-dependencies.js";
import { IdentityStamps } from "./identity-stamps.js";

export { stringList } from "./identity-dependencies.js";

/**
 * A Team change as far as membership goes: the team as it named members before and as it names
 * them now, each undefined when its stored bytes name none (such a team is never parsed).
 */
export interface TeamMembersChange {
  readonly before?: KubeObject;
  readonly now?: KubeObject;
}

/**
 * In-memory indexes over access keys, users and teams, fed by informers: what each
 * request's authentication and identity need, without a database read.
 */
export class IdentityIndex {
  private readonly keysByHash = new Map<string, KubeObject>();
  /** Team names by a user named in their spec.users, and by a group in their spec.groups: every request asks. */
  private readonly teamsByMember = new Map<string, Set<string>>();
  private readonly teamsByGroup = new Map<string, Set<string>>();
  /**
   * Storage keys of the teams whose current stored bytes may name members (mayNameMembers), so
   * that a team's bytes are scanned once, when they arrive, and not again as an event's oldBytes.
   */
  private readonly teamsNamingMembers = new Set<string>();
  private readonly teamMembersListeners = new Set<(change: TeamMembersChange) => void>();
  /** When each thing an identity is built from last changed (identity-dependencies.ts). */
  readonly stamps = new IdentityStamps();

  constructor(
    readonly keys: Informer,
    readonly users: Informer,
    readonly teams: Informer,
  ) {
    keys.onChange((e) => this.onKey(e));
    users.onChange((e) => this.onUser(e));
    teams.onChange((e) => this.onTeam(e));
    // A relist (after a watch gap) replaced a whole copy: whatever it missed, nothing built before holds.
    for (const informer of [keys, users, teams]) informer.onRelist(() => this.stamps.dropAll());
  }

  async start(): Promise<void> {
    await Promise.all([this.keys.synced(), this.users.synced(), this.teams.synced()]);
    this.keysByHash.clear();
    for (const k of this.keys.list()) this.indexKey(k);
    this.teamsByMember.clear();
    this.teamsByGroup.clear();
    this.teamsNamingMembers.clear();
    // Only teams whose stored bytes name members can add to the membership index.
    for (const { key, object } of this.teams.entriesWhere(mayNameMembers)) {
      this.teamsNamingMembers.add(key);
      this.indexTeam(object);
    }
  }

  /**
   * Marks what a change touched (identity-dependencies.ts), unless `keeps` is sure that it leaves
   * every identity built before as it is (identity-changes.ts). Decided before the indexes change;
   * an error while deciding (an object that does not decode) drops everything: fail closed.
   */
  private touchUnless(keeps: () => boolean, touched: () => readonly string[]): void {
    try {
      if (keeps()) return;
      for (const name of touched()) this.stamps.touch(name);
    } catch {
      this.stamps.dropAll();
    }
  }

  private onKey(e: InformerEvent): void {
    // Every cached identity is found by its key's hash: a change of a key touches its hash, before
    // and now. A new key only adds an identity, unless its hash is one an indexed key has already
    // (a key given by its creator): then that hash may authenticate as someone else from now on.
    const updated = e.type === "upsert" && e.oldBytes !== undefined;
    this.touchUnless(
      () => (updated ? keyUpdateKeepsIdentities(e.old!, e.object) : e.type === "upsert" && !this.hashTaken(e.object)),
      () => hashDependencies(updated ? [e.old!, e.object] : [e.object]),
    );
    if (e.type === "upsert" && e.old) this.unindexKey(e.old);
    if (e.type === "delete") this.unindexKey(e.object);
    else this.indexKey(e.object);
  }

  private hashTaken(k: KubeObject): boolean {
    const h = storedKeyHash(k);
    return h !== undefined && this.keysByHash.has(h);
  }

  private onUser(e: InformerEvent): void {
    // A user is named by its keys' spec.user: only identities of that name are touched. A new user
    // touches none: no identity can refer to a user that did not exist (its keys were refused).
    this.touchUnless(
      () => e.type === "upsert" && (e.oldBytes === undefined || updateKeepsIdentities(e.old!, e.object)),
      () => [userDependency(e.object.metadata.name!)],
    );
  }

  /** One scan of the team's bytes (mayNameMembers) per event serves the stamps, the index and the listeners. */
  private onTeam(e: InformerEvent): void {
    const namedBefore = this.teamsNamingMembers.has(e.key);
    const namesNow = e.type === "upsert" && mayNameMembers(e.bytes);
    const before = namedBefore ? (e.type === "delete" ? e.object : e.old) : undefined;
    const now = namesNow ? e.object : undefined;
    // Whoever it starts or stops naming, and the team itself unless only its member lists changed
    // (identity-dependencies.ts), from the whole objects before and now, not from what the index
    // remembers of them.
    const updated = e.type === "upsert" && e.oldBytes !== undefined;
    this.touchUnless(
      () => updated && updateKeepsIdentities(e.old!, e.object),
      () =>
        e.type === "delete"
          ? teamChangeDependencies(e.object, undefined)
          : teamChangeDependencies(updated ? e.old : undefined, e.object),
    );
    if (before) this.unindexTeam(before);
    if (now) {
      this.teamsNamingMembers.add(e.key);
      this.indexTeam(now);
    } else this.teamsNamingMembers.delete(e.key);
    if (!before && !now) return;
    for (const listener of this.teamMembersListeners) {
      try {
        listener({ before, now });
      } catch {
        // One listener's failure must not keep the others from hearing of the change.
      }
    }
  }

  /**
   * Hears of every Team change that concerns membership (before or now naming members), after
   * the index took it in; returns its removal. The user-teams controller listens here rather
   * than to the team informer, so that the team's bytes are not scanned again.
   */
  onTeamMembersChange(listener: (change: TeamMembersChange) => void): () => void {
    this.teamMembersListeners.add(listener);
    return () => this.teamMembersListeners.delete(listener);
  }

  private indexKey(k: KubeObject): void {
    const h = storedKeyHash(k);
    if (h !== undefined) this.keysByHash.set(h, k);
  }

  private unindexKey(k: KubeObject): void {
    const h = storedKeyHash(k);
    if (h !== undefined && this.keysByHash.get(h)?.metadata.uid === k.metadata.uid) this.keysByHash.delete(h);
  }

  private indexTeam(t: KubeObject): void {
    const name = t.metadata.name!;
    for (const u of stringList(t.spec?.users)) addTo(this.teamsByMember, u, name);
    for (const g of stringList(t.spec?.groups)) addTo(this.teamsByGroup, g, name);
  }

  private unindexTeam(t: KubeObject): void {
    const name = t.metadata.name!;
    for (const u of stringList(t.spec?.users)) removeFrom(this.teamsByMember, u, name);
    for (const g of stringList(t.spec?.groups)) removeFrom(this.teamsByGroup, g, name);
  }

  /** Whether a value built at `stamp` (stamps.now) from `names` (identity-dependencies.ts) still holds. */
  unchangedSince(names: readonly string[], stamp: number): boolean {
    return this.stamps.unchangedSince(names, stamp);
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
    const names = new Set(this.teamsByMember.get(userName));
    for (const g of userGroups) for (const t of this.teamsByGroup.get(g) ?? []) names.add(t);
    const teams: KubeObject[] = [];
    for (const n of [...names].sort()) {
      const t = this.teams.get(undefined, n);
      if (t) teams.push(t);
    }
    return teams;
  }
}

const USERS_KEY = Buffer.from('"users"');
const GROUPS_KEY = Buffer.from('"groups"');

/** Whether a team's stored bytes may name members (spec.users or spec.groups); false is certain. */
export function mayNameMembers(bytes: Buffer): boolean {
  return bytes.includes(USERS_KEY) || bytes.includes(GROUPS_KEY);
}

function addTo(index: Map<string, Set<string>>, key: string, team: string): void {
  const set = index.get(key);
  if (set) set.add(team);
  else index.set(key, new Set([team]));
}

function removeFrom(index: Map<string, Set<string>>, key: string, team: string): void {
  const set = index.get(key);
  if (!set) return;
  set.delete(team);
  if (set.size === 0) index.delete(key);
}

/** The hashes of these keys, as dependencies; a key without a stored hash authenticates nobody. */
function hashDependencies(keys: readonly KubeObject[]): string[] {
  const names: string[] = [];
  for (const k of keys) {
    const h = storedKeyHash(k);
    if (h !== undefined) names.push(keyDependency(h));
  }
  return names;
}
