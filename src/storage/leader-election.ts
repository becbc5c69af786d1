/**
 * Leader election for the background controllers: on etcd, exactly one replica at a time holds
 * a key bound to its lease; with the embedded SQLite store there is one replica, always leader.
 *
 * The etcd elector is a lease plus a create-if-absent transaction, re-tried on a short poll:
 * - the leader's key lives as long as its lease: a replica that dies stops renewing and its key
 *   goes away after the lease TTL; a replica that stops cleanly deletes it at once (resign);
 * - candidates try the create every `retryMs` (not a watch, so a missed event can never leave
 *   the cluster without a leader);
 * - the leader re-checks its key on the same period and steps down (onLost) when its lease was
 *   lost or the key is no longer its own, before anyone else can be elected on that key.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Etcd3, Lease } from "etcd3";

export interface LeadershipCallbacks {
  /** This replica just became the leader. */
  onElected(): void;
  /** This replica is no longer the leader (lost its lease, or stopping). */
  onLost(): void;
}

export interface LeaderElector {
  /** A name for logs and for the leader key's value. */
  readonly identity: string;
  readonly isLeader: boolean;
  /** Starts campaigning; callbacks fire on every change of leadership. */
  start(callbacks: LeadershipCallbacks): void;
  /** Stops campaigning and gives up leadership (onLost fires first when leader). */
  stop(): Promise<void>;
}

/** The single-replica case (embedded SQLite): leader from start to stop. */
export class SingleReplicaElector implements LeaderElector {
  readonly identity = `${hostname()}-${process.pid}`;
  private callbacks: LeadershipCallbacks | undefined;
  isLeader = false;

  start(callbacks: LeadershipCallbacks): void {
    this.callbacks = callbacks;
    this.isLeader = true;
    callbacks.onElected();
  }

  async stop(): Promise<void> {
    if (!this.isLeader) return;
    this.isLeader = false;
    this.callbacks?.onLost();
  }
}

export interface EtcdElectorOptions {
  /** The leader key (default `/platform/leader/controllers`, outside the registry's keys). */
  readonly key?: string;
  /** Lease TTL in seconds: how long a dead leader blocks the others (default 5). */
  readonly ttlSeconds?: number;
  /** How often candidates try, and the leader re-checks (default 500 ms). */
  readonly retryMs?: number;
  readonly identity?: string;
}

export class EtcdLeaderElector implements LeaderElector {
  readonly identity: string;
  private readonly key: Buffer;
  private readonly ttlSeconds: number;
  private readonly retryMs: number;
  private callbacks: LeadershipCallbacks | undefined;
  private lease: Lease | undefined;
  private leaseId: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private busy: Promise<void> = Promise.resolve();
  isLeader = false;

  constructor(
    private readonly client: Etcd3,
    options: EtcdElectorOptions = {},
  ) {
    this.identity = options.identity ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.key = Buffer.from(options.key ?? "/platform/leader/controllers");
    this.ttlSeconds = options.ttlSeconds ?? 5;
    this.retryMs = options.retryMs ?? 500;
  }

  start(callbacks: LeadershipCallbacks): void {
    this.callbacks = callbacks;
    this.running = true;
    this.tick();
  }

  private tick(): void {
    if (!this.running) return;
    this.busy = this.round()
      .catch(() => this.stepDown()) // etcd unreachable: not provably leader any more
      .finally(() => {
        if (this.running) this.timer = setTimeout(() => this.tick(), this.retryMs);
      });
  }

  private async round(): Promise<void> {
    if (!this.lease) {
      const lease = this.client.lease(this.ttlSeconds);
      lease.on("lost", () => {
        if (this.lease !== lease) return;
        this.lease = undefined;
        this.leaseId = undefined;
        this.stepDown();
      });
      this.lease = lease;
      this.leaseId = await lease.grant();
    }
    const leaseId = this.leaseId!;
    const res = await this.client.kv.txn({
      compare: [{ key: this.key, target: 1 /* Create */, result: 0 /* Equal */, create_revision: 0 }],
      success: [{ request_put: { key: this.key, value: Buffer.from(this.identity), lease: leaseId } }],
      failure: [{ request_range: { key: this.key } }],
    });
    if (!this.running) return;
    if (res.succeeded) {
      this.elect();
      return;
    }
    const holder = res.responses[0]?.response_range?.kvs[0];
    if (holder && holder.lease === leaseId) this.elect();
    else this.stepDown();
  }

  private elect(): void {
    if (this.isLeader || !this.running) return;
    this.isLeader = true;
    this.callbacks?.onElected();
  }

  private stepDown(): void {
    if (!this.isLeader) return;
    this.isLeader = false;
    this.callbacks?.onLost();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.busy;
    this.stepDown();
    const lease = this.lease;
    this.lease = undefined;
    // Revoking the lease deletes the leader key: another replica takes over on its next try.
    await lease?.revoke().catch(() => undefined);
  }
}
