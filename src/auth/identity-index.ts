import type { KubeObject } from "../api/object.js";
import { storedKeyHash } from "../kinds/owned-access-key/owned-access-key.js";
import type { Informer, InformerEvent } from "../registry/informer.js";
import { keyUpdateKeepsIdentities, updateKeepsIdentities } from "./identity-changes.js";

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
  private changes = 0;

  constructor(
    readonly keys: Informer,
    readonly users: Informer,
    readonly teams: Informer,
  ) {
    keys.onChange((e) => this.onKey(e));
    users.onChange((e) => this.onUser(e));
    teams.onChange((e) => this.onTeam(e));
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
   * The generation moves unless `keeps` is sure that the change leaves every identity built
   * before as it is (identity-changes.ts). Decided before the indexes change; an error while
   * deciding (an object that does not decode) counts as a change: fail closed.
   */
  private changedUnless(keeps: () => boolean): void {
    let kept = false;
    try {
      kept = keeps();
    } catch {
      kept = false;
    }
    if (!kept) this.changes++;
  }

  private onKey(e: InformerEvent): void {
    // A new key only adds an identity, unless its hash is one an indexed key has already (a key
    // given by its creator): then that hash may authenticate as someone else from now on.
    this.changedUnless(() =>
      e.type === "delete"
        ? false
        : e.oldBytes === undefined
          ? !this.takenByAnother(e.object)
          : keyUpdateKeepsIdentities(e.old!, e.object),
    );
    if (e.type === "upsert" && e.old) this.unindexKey(e.old);
    if (e.type === "delete") this.unindexKey(e.object);
    else this.indexKey(e.object);
  }

  private takenByAnother(k: KubeObject): boolean {
    const h = storedKeyHash(k);
    const holder = h === undefined ? undefined : this.keysByHash.get(h);
    return holder !== undefined && holder.metadata.uid !== k.metadata.uid;
  }

  private onUser(e: InformerEvent): void {
    // No identity can refer to a user that did not exist (its keys were refused): a new user
    // changes nobody's identity until a key for it authenticates.
    this.changedUnless(() =>
      e.type === "delete" ? false : e.oldBytes === undefined || updateKeepsIdentities(e.old!, e.object),
    );
  }

  /** One scan of the team's bytes (mayNameMembers) per event serves the generation, the index and the listeners. */
  private onTeam(e: InformerEvent): void {
    const namedBefore = this.teamsNamingMembers.has(e.key);
    const namesNow = e.type === "upsert" && mayNameMembers(e.bytes);
    // A new team that names no members changes no identity (nor the roles derived from one):
    // no identity can refer to a team that did not exist, and only teams naming a user or group
    // add to someone's teams. A deleted team's keys stop authenticating.
    this.changedUnless(() =>
      e.type === "delete" ? false : e.oldBytes === undefined ? !namesNow : updateKeepsIdentities(e.old!, e.object),
    );
    const before = namedBefore ? (e.type === "delete" ? e.object : e.old) : undefined;
    const now = namesNow ? e.object : undefined;
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

  /**
   * Moves on whenever a key, user or team changed in a way that may change an identity built
   * before (identity-changes.ts): what was derived from them before may be stale then.
   */
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
