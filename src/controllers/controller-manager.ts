/**
 * Runs the background controllers (garbage collector, user teams, virtual cluster CA cleanup, cluster health) only on
 * the replica that currently leads, and stops them when leadership is lost.
 */
import type { LeaderElector } from "../storage/leader-election.js";

export interface Controller {
  readonly name: string;
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}

export interface ControllerManagerOptions {
  /** Reports a controller's start/stop failure (default: console.error). */
  readonly onError?: (controller: string, err: unknown) => void;
}

export class ControllerManager {
  private readonly controllers: Controller[] = [];
  private readonly running = new Set<Controller>();
  /** Start/stop transitions run one after another, in order. */
  private queue: Promise<void> = Promise.resolve();
  private started = false;

  constructor(
    readonly elector: LeaderElector,
    private readonly options: ControllerManagerOptions = {},
  ) {}

  /** Adds a controller; it runs whenever this replica leads (at once, if it leads already). */
  register(controller: Controller): void {
    this.controllers.push(controller);
    if (this.elector.isLeader) this.enqueue(() => this.startOne(controller));
  }

  get isLeader(): boolean {
    return this.elector.isLeader;
  }

  /** Names of the controllers running here now. */
  runningControllers(): string[] {
    return [...this.running].map((c) => c.name);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.elector.start({
      onElected: () =>
        this.enqueue(async () => {
          for (const c of this.controllers) await this.startOne(c);
        }),
      onLost: () => this.enqueue(() => this.stopAll()),
    });
  }

  /** Gives up leadership and stops every controller. */
  async stop(): Promise<void> {
    await this.elector.stop();
    this.enqueue(() => this.stopAll());
    await this.queue;
  }

  /** Resolves once every pending start/stop has run. */
  settled(): Promise<void> {
    return this.queue;
  }

  private enqueue(step: () => Promise<void>): void {
    this.queue = this.queue.then(step, step);
  }

  private async startOne(c: Controller): Promise<void> {
    if (this.running.has(c) || !this.elector.isLeader) return;
    try {
      await c.start();
      this.running.add(c);
    } catch (err) {
      this.report(c, err);
    }
  }

  private async stopAll(): Promise<void> {
    for (const c of [...this.running].reverse()) {
      this.running.delete(c);
      try {
        await c.stop();
      } catch (err) {
        this.report(c, err);
      }
    }
  }

  private report(c: Controller, err: unknown): void {
    if (this.options.onError) this.options.onError(c.name, err);
    else console.error(`controller ${c.name}:`, err);
  }
}
