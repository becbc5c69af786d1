import type { WatchEvent } from "./interface.js";

/**
 * The most recent watch events, for watches that start a little behind the live feed (the watch
 * cache's and the etcd watch hub's). A fixed-size ring: a full one overwrites its oldest event.
 */
export class EventRing {
  private events: WatchEvent[] = [];
  private head = 0;
  /** Every event with revision > floor is in the ring. */
  private lowest: number;

  constructor(
    readonly size: number,
    floor = 0,
  ) {
    this.lowest = floor;
  }

  /** Every event after this revision is here: a watch from at least it can be replayed. */
  get floor(): number {
    return this.lowest;
  }

  push(ev: WatchEvent): void {
    if (this.events.length < this.size) {
      this.events.push(ev);
      return;
    }
    // Full: overwrite the oldest. Other events of its revision (one transaction) may remain,
    // so the floor is that revision itself.
    const evicted = this.events[this.head]!;
    this.events[this.head] = ev;
    this.head = (this.head + 1) % this.size;
    this.lowest = Math.max(this.lowest, evicted.revision);
  }

  /** The events after `revision`, oldest first. */
  after(revision: number): WatchEvent[] {
    const out: WatchEvent[] = [];
    const n = this.events.length;
    for (let i = 0; i < n; i++) {
      const ev = this.events[(this.head + i) % n]!;
      if (ev.revision > revision) out.push(ev);
    }
    return out;
  }

  /** Empties the ring; what follows starts after `floor`. */
  reset(floor: number): void {
    this.events = [];
    this.head = 0;
    this.lowest = floor;
  }
}
