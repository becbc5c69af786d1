import { isDeepStrictEqual } from "node:util";
import { specOf, statusOf } from "../../api/object.js";
import { type IdentityIndex, stringList, type TeamMembersChange } from "../../auth/identity-index.js";
import type { TeamSpec } from "../../kinds/team/team.js";
import type { UserSpec, UserStatus } from "../../kinds/user/user.js";
import type { Registry } from "../../registry/registry.js";
import { type ControllerLog, silentLog } from "../controller-log.js";
import { ControllerWiring } from "../controller-wiring.js";
import { updateUnlessGone } from "../kept-object-writes.js";
import { WiredController } from "../wired-controller.js";
import type { WorkQueue } from "../work-queue.js";

/**
 * Keeps User status.teams current (docs/permissions.md): a user is in a team when the team's
 * spec.users names it or the two share a group. A change queues only the users it can affect:
 * a user change that user; a team change the users its spec.users names (before and after), or
 * every user when it names groups. A team naming neither (most creates) is not even parsed.
 * The queue's keys are user names; a write happens only where the answer changed, so its own
 * writes settle at once. A failed write is retried with backoff (work-queue.ts). Started after
 * the identity index (its informers have synced): every user is queued before start() returns.
 */
export class UserTeamsController extends WiredController {
  protected readonly wiring: ControllerWiring;

  constructor(
    private readonly registry: Registry,
    private readonly identity: IdentityIndex,
    log: ControllerLog = silentLog,
  ) {
    super();
    this.wiring = new ControllerWiring({
      controller: "user-teams",
      log,
      process: (name) => this.reconcile(name),
      subscribe: (queue) => [
        identity.users.onChange((e) => queue.add(e.object.metadata.name ?? "")),
        // The index hands over the team as it named members before and now, scanned once.
        identity.onTeamMembersChange((change) => this.onTeamChange(queue, change)),
      ],
      keys: () => identity.users.names(),
    });
  }

  private addAll(queue: WorkQueue<string>): void {
    for (const name of this.identity.users.names()) queue.add(name);
  }

  private onTeamChange(queue: WorkQueue<string>, { before, now }: TeamMembersChange): void {
    const users: string[] = [];
    for (const team of [before, now]) {
      if (!team) continue;
      const spec = specOf<TeamSpec>(team);
      if (stringList(spec.groups).length > 0) {
        this.addAll(queue);
        return;
      }
      users.push(...stringList(spec.users));
    }
    for (const u of users) queue.add(u);
  }

  private async reconcile(name: string): Promise<void> {
    const user = this.identity.user(name);
    if (!user) return;
    const want = this.teamsOf(name, specOf<UserSpec>(user).groups);
    if (isDeepStrictEqual(statusOf<UserStatus>(user).teams ?? [], want)) return;
    // Deleted meanwhile: nothing left to keep current.
    await updateUnlessGone(
      this.registry.store("users"),
      user,
      { subresource: "status", fieldManager: "platform-user-teams" },
      (obj) => {
        const current = this.teamsOf(name, specOf<UserSpec>(obj).groups);
        if (isDeepStrictEqual(statusOf<UserStatus>(obj).teams ?? [], current)) return undefined;
        obj.status = { ...statusOf<UserStatus>(obj), teams: current } satisfies UserStatus;
        return obj;
      },
    );
  }

  private teamsOf(name: string, groups: UserSpec["groups"]): string[] {
    return this.identity
      .teamsOfUser(name, groups ?? [])
      .map((t) => t.metadata.name ?? "")
      .sort();
  }
}
