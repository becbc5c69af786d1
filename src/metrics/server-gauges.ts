/**
 * Gauges read from a running server's state when Prometheus scrapes: objects per resource,
 * clusters by health reason, access keys by type, the garbage collector's queue, watch cache
 * lag and whether the store answers. A process may run several servers (tests do): each
 * registers a source and the gauges add them up.
 */
import { type Aggregator, Gauge } from "prom-client";
import { type KubeObject, specOf, statusOf } from "../api/object.js";
import type { ClusterStatus } from "../kinds/cluster/cluster.js";
import type { OwnedAccessKeySpec } from "../kinds/owned-access-key/owned-access-key.js";
import { resourcePrefix } from "../registry/keys.js";
import type { Registry } from "../registry/registry.js";
import type { CachedStorage } from "../storage/cache/cached-storage.js";
import { metricsRegistry } from "./metrics.js";

export interface ServerGaugeSource {
  registry: Registry;
  storage: CachedStorage;
  /** Items waiting in the garbage collector's queue. */
  gcQueueDepth(): number;
}

const sources = new Set<ServerGaugeSource>();

/** Adds a server's state to the gauges; the returned function removes it (on close). */
export function registerGaugeSource(source: ServerGaugeSource): () => void {
  sources.add(source);
  return () => sources.delete(source);
}

type Set1 = (labels: Record<string, string>, value: number) => void;

/**
 * A gauge whose value is computed over every source at scrape time. `merge`: how the workers of
 * `--workers N` combine (primary-scrape.ts): `max` for what every worker reads from the same store.
 */
function scraped(
  name: string,
  help: string,
  labelNames: string[],
  fill: (s: ServerGaugeSource, set: Set1) => unknown,
  merge: Aggregator = "sum",
) {
  return new Gauge({
    name,
    help,
    labelNames,
    aggregator: merge,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      for (const source of sources) {
        await fill(source, (labels, value) => this.inc(labels, value));
      }
    },
  });
}

scraped(
  "apiserver_storage_objects",
  "Number of stored objects at the time of last check split by kind.",
  ["resource"],
  (s, set) => {
    for (const rt of s.registry.resourceTypes()) {
      const cache = s.storage.cacheFor(resourcePrefix(rt));
      if (cache) set({ resource: `${rt.plural}.${rt.group}` }, cache.size);
    }
  },
  "max",
);

scraped(
  "platform_watch_cache_lag_revisions",
  "How many store revisions a resource's watch cache is behind the store (0 when current).",
  ["resource"],
  async (s, set) => {
    const current = await s.storage.inner.currentRevision().catch(() => undefined);
    if (current === undefined) return;
    for (const rt of s.registry.resourceTypes()) {
      const cache = s.storage.cacheFor(resourcePrefix(rt));
      if (cache) set({ resource: `${rt.plural}.${rt.group}` }, Math.max(0, current - cache.revision));
    }
  },
  "max",
);

scraped(
  "platform_storage_available",
  "1 when the store answered a revision query at the last scrape (within 5 s), else 0.",
  [],
  async (s, set) => {
    set({}, (await answersWithin(s.storage.inner.currentRevision(), 5000)) ? 1 : 0);
  },
  // 0 when any worker cannot reach the store.
  "min",
);

scraped(
  "platform_clusters",
  "Connected clusters by health reason (Cluster status.reason).",
  ["reason"],
  async (s, set) => {
    for (const obj of await storedObjects(s, "clusters")) {
      set({ reason: statusOf<ClusterStatus>(obj).reason || "Unknown" }, 1);
    }
  },
  "max",
);

scraped(
  "platform_access_keys",
  "Owned access keys by type (User, Login, Other).",
  ["type"],
  async (s, set) => {
    for (const obj of await storedObjects(s, "ownedaccesskeys")) {
      set({ type: specOf<OwnedAccessKeySpec>(obj).type ?? "User" }, 1);
    }
  },
  "max",
);

scraped(
  "platform_garbage_collector_queue_depth",
  "Objects waiting to be checked by the garbage collector (on the elected replica).",
  [],
  (s, set) => set({}, s.gcQueueDepth()),
);

/** Every stored object of a resource, from the watch cache (as stored: status and spec are plain). */
async function storedObjects(s: ServerGaugeSource, plural: string): Promise<KubeObject[]> {
  const rt = s.registry.find(plural)?.rt;
  if (!rt) return [];
  const list = await s.storage.list(resourcePrefix(rt));
  return list.items.flatMap((kv) => parsedObject(kv.value) ?? []);
}

/**
 * A stored value as an object; undefined when it is not one. A damaged value (the informers log
 * and count it) must not fail every scrape, nor have the parser quote its bytes in the error.
 */
function parsedObject(value: Buffer): KubeObject | undefined {
  try {
    const obj: unknown = JSON.parse(value.toString("utf8"));
    return typeof obj === "object" && obj !== null && !Array.isArray(obj) ? (obj as KubeObject) : undefined;
  } catch {
    return undefined;
  }
}

async function answersWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
