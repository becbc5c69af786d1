import { nowTimestamp } from "../api/object.js";
import type { Informer } from "../registry/informer.js";
import { systemContext, type UserInfo } from "../registry/request-context.js";
import type { Store } from "../registry/store.js";

/** status.lastActivity is written at most this often per key (docs/security.md). */
const ACTIVITY_WRITE_INTERVAL_MS = 60_000;

/**
 * Records that a key was used: one status write per key per minute at most, so a busy CI
 * key does not turn every read into a database write.
 */
export class KeyActivityRecorder {
  private readonly lastWrite = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly keys: Informer,
    private readonly now: () => number = Date.now,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  touch(user: UserInfo): void {
    const name = user.credential?.type === "AccessKey" ? user.credential.name : undefined;
    if (!name) return;
    const now = this.now();
    // The common case (written less than a minute ago) answers from the map, without a decode or a date parse.
    if (now - (this.lastWrite.get(name) ?? 0) < ACTIVITY_WRITE_INTERVAL_MS) return;
    const stored = Date.parse(String(this.keys.get(undefined, name)?.status?.lastActivity ?? ""));
    if (!Number.isNaN(stored) && now - stored < ACTIVITY_WRITE_INTERVAL_MS) {
      this.lastWrite.set(name, stored);
      return;
    }
    this.lastWrite.set(name, now);
    const at = nowTimestamp(new Date(now));
    void this.store
      .guaranteedUpdate(
        systemContext(),
        undefined,
        name,
        (obj) => {
          obj.status = { ...(obj.status ?? {}), lastActivity: at };
          return obj;
        },
        "status",
      )
      .catch(this.onError);
  }
}
