import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "../../api/object.js";
import { type IdentityIndex, mayNameMembers, stringList } from "../../auth/identity-index.js";
import type { InformerEvent } from "../../registry/informer.js";
import type { Registry } from "../../registry/registry.js";
import { systemContext } from "../../registry/request-context.js";

/**
 * Keeps User status.teams current (docs/permissions.md): a user is in a team when the team's
 * spec.users names it or the two share a group. A change re-checks only the users it can
 * affect: a user change that user; a team change the users its spec.users names (before and
 * after), or every user when it names groups. A team naming neither (most creates) is not even
 * parsed. A write happens only where the answer changed, so its own writes settle at once.
 */
export class UserTeamsController {
  private unsubscribe: Array<() => void> = [];
  private running = false;
  /** Users to re-check, or "all" (at start, and after a change to a team's groups). */
  private pending: Set<string> | "all" = "all";
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly registry: Registry,
    private readonly identity: IdentityIndex,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  start(): void {
    this.unsubscribe = [
      this.identity.users.onChange((e) => this.recheck([e.object.metadata.name ?? ""])),
      this.identity.teams.onChange((e) => this.onTeamChange(e)),
    ];
    this.recheck("all");
  }

  stop(): Promise<void> {
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    return this.idle;
  }

  /** Resolves when the pass in progress (if any) is done: for tests. */
  settled(): Promise<void> {
    return this.idle;
  }

  private onTeamChange(e: InformerEvent): void {
    const before = e.type === "upsert" && e.oldBytes && mayNameMembers(e.oldBytes) ? e.old : undefined;
    const now = mayNameMembers(e.bytes) ? e.object : undefined;
    const users: string[] = [];
    for (const team of [before, now]) {
      if (!team) continue;
      if (stringList(team.spec?.groups).length > 0) {
        this.recheck("all");
        return;
      }
      users.push(...stringList(team.spec?.users));
    }
    if (users.length > 0) this.recheck(users);
  }

  private recheck(users: string[] | "all"): void {
    if (users === "all") this.pending = "all";
    else if (this.pending !== "all") for (const u of users) this.pending.add(u);
    if (this.running) return;
    this.running = true;
    this.idle = (async () => {
      try {
        while (this.unsubscribe.length > 0 && (this.pending === "all" || this.pending.size > 0)) {
          const batch = this.pending;
          this.pending = new Set();
          try {
            await this.reconcile(batch);
          } catch (err) {
            this.onError(err);
            // Kept for the next change to retry (a failed write must not lose whom to re-check).
            // What changed meanwhile (the cast undoes TypeScript's narrowing across the await).
            const queued = this.pending as Set<string> | "all";
            this.pending = batch === "all" || queued === "all" ? "all" : new Set([...batch, ...queued]);
            break;
          }
        }
      } finally {
        this.running = false;
      }
    })();
  }

  private async reconcile(names: Set<string> | "all"): Promise<void> {
    const users = this.registry.store("users");
    const candidates =
      names === "all"
        ? this.identity.users.list()
        : [...names].map((n) => this.identity.user(n)).filter((u): u is KubeObject => !!u);
    for (const user of candidates) {
      const name = user.metadata.name ?? "";
      const want = this.identity
        .teamsOfUser(name, (user.spec?.groups as string[] | undefined) ?? [])
        .map((t) => t.metadata.name ?? "")
        .sort();
      if (isDeepStrictEqual(user.status?.teams ?? [], want)) continue;
      await users.guaranteedUpdate(
        systemContext(),
        undefined,
        name,
        (obj) => {
          const current = this.identity
            .teamsOfUser(name, (obj.spec?.groups as string[] | undefined) ?? [])
            .map((t) => t.metadata.name ?? "")
            .sort();
          if (isDeepStrictEqual(obj.status?.teams ?? [], current)) return undefined;
          obj.status = { ...(obj.status ?? {}), teams: current };
          return obj;
        },
        "status",
        "platform-user-teams",
      );
    }
  }
}
