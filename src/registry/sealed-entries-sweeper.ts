import { PeriodicTask } from "../support/periodic-task.js";
import type { SealedEntries } from "./sealed-entries.js";

/** How often expired entries are removed. */
const SWEEP_INTERVAL_MS = 60_000;
/** At most this many entries per key space; beyond it the ones that expire first go (as the old in-memory bound). */
export const MAX_ENTRIES = 10_000;

/**
 * Removes expired sealed entries: SSO sign-ins that never came back and CLI codes never redeemed
 * (src/sso), console sessions that ended (src/console). Each is refused when late anyway; this
 * keeps the store from collecting them. Runs on the elected replica.
 */
export class SealedEntriesSweeper {
  readonly #task: PeriodicTask<number>;

  constructor(
    private readonly spaces: ReadonlyArray<SealedEntries<unknown>>,
    onError: (err: unknown) => void,
    private readonly max = MAX_ENTRIES,
  ) {
    this.#task = new PeriodicTask(() => this.sweep(), { intervalMs: SWEEP_INTERVAL_MS, onError });
  }

  start(): void {
    this.#task.start();
  }

  async stop(): Promise<void> {
    await this.#task.stop();
  }

  /** One round: how many entries it removed. */
  async sweep(now = Date.now()): Promise<number> {
    let removed = 0;
    for (const space of this.spaces) removed += await space.sweep(now, this.max);
    return removed;
  }
}
