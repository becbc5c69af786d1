import { isDeepStrictEqual } from "node:util";
import type { IdentityIndex } from "../../auth/identity-index.js";
import type { Registry } from "../../registry/registry.js";
import { systemContext } from "../../registry/request-context.js";

/**
 * Keeps User status.teams current (decisions.md §2): a user is in a team when the team's
 * spec.users names it or the two share a group. Any user or team change re-checks every
 * user; a write happens only where the answer changed, so its own writes settle at once.
 */
export class UserTeamsController {
  private unsubscribe: Array<() => void> = [];
  private running = false;
  private again = false;
  private idle: Promise<void> = Promise.resolve();

  constructor(
    private readonly registry: Registry,
    private readonly identity: IdentityIndex,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  start(): void {
    const kick = () => this.schedule();
    this.unsubscribe = [this.identity.users.onChange(kick), this.identity.teams.onChange(kick)];
    this.schedule();
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

  private schedule(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.idle = (async () => {
      try {
        do {
          this.again = false;
          await this.reconcile();
        } while (this.again && this.unsubscribe.length > 0);
      } catch (err) {
        this.onError(err);
      } finally {
        this.running = false;
      }
    })();
  }

  private async reconcile(): Promise<void> {
    const users = this.registry.store("users");
    for (const user of this.identity.users.list()) {
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
