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
 *   lost or the key is no longer its own, before anyone else can be elected on that key;
 * - the lease is renewed once a third of its TTL has passed since the last renewal, so that two
 *   renewals can fail before it expires; one that etcd answers with TTL 0 (the lease expired or
 *   was revoked) loses leadership at once, and a new lease is granted on the next round.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
// Types only: a server on SQLite never loads the etcd client.
import type { EtcdClient, LeaseId } from "./etcd/client/index.js";

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

/** What the elector needs of the etcd client (storage/etcd/client): leases and one transaction. */
export type ElectionEtcd = Pick<EtcdClient, "leaseGrant" | "leaseKeepAlive" | "leaseRevoke" | "createIfAbsent">;

export class EtcdLeaderElector implements LeaderElector {
  readonly identity: string;
  private readonly key: Buffer;
  private readonly ttlSeconds: number;
  private readonly retryMs: number;
  private callbacks: LeadershipCallbacks | undefined;
  /** The lease the key is bound to, and when it was last granted or renewed (Date.now()). */
  private lease: { readonly id: LeaseId; renewedAt: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Fires when the lease may have expired without a renewal (expireAfter). */
  private expiry: NodeJS.Timeout | undefined;
  private running = false;
  private busy: Promise<void> = Promise.resolve();
  isLeader = false;

  constructor(
    private readonly client: ElectionEtcd,
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
    const lease = await this.currentLease();
    if (!this.running) return;
    if (!lease) {
      this.stepDown();
      return;
    }
    const res = await this.client.createIfAbsent(this.key, Buffer.from(this.identity), lease.id);
    if (!this.running) return;
    // Long IDs compared as the decimal IDs they are.
    if (res.created || String(res.holderLease) === String(lease.id)) this.elect();
    else this.stepDown();
  }

  /**
   * The lease to campaign with: granted when there is none, renewed when a third of its TTL has
   * passed. Undefined when etcd no longer knows it (this round loses; the next grants another).
   */
  private async currentLease(): Promise<{ readonly id: LeaseId; renewedAt: number } | undefined> {
    // Times are taken when a request is sent: etcd starts the TTL when it gets it, not before.
    if (!this.lease) {
      const sentAt = Date.now();
      const granted = await this.client.leaseGrant(this.ttlSeconds);
      this.lease = { id: granted.id, renewedAt: sentAt };
      this.expireAfter(this.lease);
      return this.lease;
    }
    const lease = this.lease;
    if (Date.now() - lease.renewedAt < (this.ttlSeconds * 1000) / 3) return lease;
    const sentAt = Date.now();
    const ttl = await this.client.leaseKeepAlive(lease.id);
    if (ttl > 0 && this.lease === lease) {
      lease.renewedAt = sentAt;
      this.expireAfter(lease);
      return lease;
    }
    this.forget(lease);
    return undefined;
  }

  /**
   * Leadership ends when the lease may have expired, even while a round still waits for etcd
   * (a call to an unreachable member waits longer than a TTL): by then another replica can hold
   * the key.
   */
  private expireAfter(lease: { readonly id: LeaseId; renewedAt: number }): void {
    clearTimeout(this.expiry);
    const left = lease.renewedAt + this.ttlSeconds * 1000 - Date.now();
    this.expiry = setTimeout(() => this.forget(lease), Math.max(0, left));
    this.expiry.unref();
  }

  private forget(lease: { readonly id: LeaseId }): void {
    if (this.lease !== lease) return;
    this.lease = undefined;
    clearTimeout(this.expiry);
    this.stepDown();
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
    clearTimeout(this.expiry);
    this.stepDown();
    const lease = this.lease;
    this.lease = undefined;
    // Revoking the lease deletes the leader key: another replica takes over on its next try.
    if (lease) await this.client.leaseRevoke(lease.id).catch(() => undefined);
  }
}
