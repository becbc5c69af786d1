import type { KubeObject } from "../api/object.js";
import { storedKeyHash } from "../kinds/owned-access-key/owned-access-key.js";
import type { Informer } from "../registry/informer.js";

/**
 * In-memory indexes over access keys, users and teams, fed by informers: what each
 * request's authentication and identity need, without a database read.
 */
export class IdentityIndex {
  private readonly keysByHash = new Map<string, KubeObject>();
  /** Team names by a user named in their spec.users, and by a group in their spec.groups: every request asks. */
  private readonly teamsByMember = new Map<string, Set<string>>();
  private readonly teamsByGroup = new Map<string, Set<string>>();
  private changes = 0;

  constructor(
    readonly keys: Informer,
    readonly users: Informer,
    readonly teams: Informer,
  ) {
    // Any change to a key, user or team may change who a key authenticates as, except a new team
    // that names no members: no identity (nor the roles derived from one) can refer to a team
    // that did not exist, and only teams naming a user or group add to someone's teams. Creating
    // such teams (the usual create) so keeps every cached identity, where it made the next
    // request of every client authenticate from scratch.
    for (const informer of [keys, users]) informer.onChange(() => this.changes++);
    teams.onChange((e) => {
      if (e.type === "delete" || e.oldBytes !== undefined || mayNameMembers(e.bytes)) this.changes++;
    });
    keys.onChange((e) => {
      if (e.type === "upsert" && e.old) this.unindexKey(e.old);
      if (e.type === "delete") this.unindexKey(e.object);
      else this.indexKey(e.object);
    });
    teams.onChange((e) => {
      // A team whose stored bytes name no users or groups (most creates) is never parsed here.
      if (e.type === "upsert" && e.oldBytes && mayNameMembers(e.oldBytes)) this.unindexTeam(e.old!);
      if (!mayNameMembers(e.bytes)) return;
      if (e.type === "delete") this.unindexTeam(e.object);
      else this.indexTeam(e.object);
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.keys.synced(), this.users.synced(), this.teams.synced()]);
    this.keysByHash.clear();
    for (const k of this.keys.list()) this.indexKey(k);
    this.teamsByMember.clear();
    this.teamsByGroup.clear();
    // Only teams whose stored bytes name members can add to the membership index.
    for (const t of this.teams.listWhere(mayNameMembers)) this.indexTeam(t);
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

  /** Moves on whenever a key, user or team changed: what was derived from them before may be stale. */
  get generation(): number {
    return this.changes;
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

/** The strings of a list field (spec.users, spec.groups); anything else counts as empty. */
export function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
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
