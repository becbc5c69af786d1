import type { Informer } from "../registry/informer.js";
import { resourcePrefix } from "../registry/keys.js";
import type { Registry } from "../registry/registry.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import { type IdentityIndex, mayNameMembers } from "./identity-index.js";

/**
 * The kinds whose informers this replica decides access from: keys, users and teams (the
 * identity index and the role sets of authorizer.ts), projects (project membership) and clusters
 * (the gateway's `use` of a cluster, from its access rules).
 */
export const ACCESS_RESOURCES = ["ownedaccesskeys", "users", "teams", "projects", "clusters"] as const;

/** CachedStorage's WriteBarrier (storage/cache/cached-storage.ts) by its shape: src/auth does not import src/storage. */
type WriteBarrier = (
  key: string,
  op: "create" | "update" | "delete",
  revision: number,
  value: Buffer | undefined,
) => Promise<void> | undefined;

/** How long a write waits for the informer of its kind, at most (as kube-apiserver waits for its watch cache). */
const DEFAULT_WAIT_MS = 3000;

export interface AccessWriteBarrierDeps {
  registry: Pick<Registry, "store">;
  informers: Pick<SharedInformers, "for">;
  identity: Pick<IdentityIndex, "failClosed">;
  log: { error(obj: object, msg: string): void };
  waitMs?: number;
}

/**
 * Read-your-writes for access decisions on the replica that takes a write (a CachedStorage write
 * barrier, so every write of this process waits: API verbs, status, deletes finished by
 * finalizers or the garbage collector, controllers). The identity and role caches, and the
 * authorizer, read this replica's informers, which learn of a write from its watch of the store.
 * On the embedded store the watch has delivered before the write returns; on etcd it delivers a
 * moment after etcd acknowledged it, so a write that takes a right away (a key disabled, a user
 * deleted, a team membership or role removed) could be answered while the next request was
 * still decided from the state before it.
 *
 * So a write of one of ACCESS_RESOURCES is answered once that kind's informer has applied its
 * revision: at once when it has (the usual case on etcd too), else after its watch delivers.
 * Writes of other kinds, and creates of a team naming no members (which changes nobody's
 * access; the bench writes them at high rates), do not wait. An informer not started yet serves
 * no decision: its first list will hold the write. After `waitMs` without the informer applying
 * it the write is answered all the same, failing closed: every cached identity and role set is
 * dropped and none is built again until the informer has caught up (IdentityIndex.failClosed).
 */
export function accessWriteBarrier(deps: AccessWriteBarrierDeps): WriteBarrier {
  const waitMs = deps.waitMs ?? DEFAULT_WAIT_MS;
  const kinds: AccessKind[] = ACCESS_RESOURCES.map((resource) => ({
    resource,
    prefix: resourcePrefix(deps.registry.store(resource).rt),
    informer: deps.informers.for(resource),
  }));
  return (key, op, revision, value) => {
    const kind = kindOf(kinds, key);
    if (kind === undefined || !kind.informer.hasSynced || kind.informer.currentRevision >= revision) return undefined;
    if (kind.resource === "teams" && op === "create" && value !== undefined && !mayNameMembers(value)) return undefined;
    return kind.informer.reach(revision, waitMs).then((inTime) => {
      if (inTime) return;
      deps.identity.failClosed(kind.informer, revision);
      deps.log.error(
        { resource: kind.resource, revision, waitedMs: waitMs },
        "a write was answered before this replica's informer applied it: cached identities and role sets dropped",
      );
    });
  };
}

interface AccessKind {
  readonly resource: string;
  readonly prefix: string;
  readonly informer: Informer;
}

/** The access kind a storage key belongs to, if any (a loop, not find(): every write asks). */
function kindOf(kinds: readonly AccessKind[], key: string): AccessKind | undefined {
  for (const k of kinds) if (key.startsWith(k.prefix)) return k;
  return undefined;
}
