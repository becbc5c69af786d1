import { ApiError, errors } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import { isStorageError } from "../storage/errors.js";
import type { KeyValue, WatchEvent } from "../storage/interface.js";
import { parseResourceVersion } from "./codec.js";
import { deletedIdentity } from "./corrupt-object.js";
import type { ObjectFilter } from "./filter.js";
import { awaitNotOlderThan, requestedRevision } from "./fresh-revision.js";
import { collectionPrefix } from "./keys.js";
import type { WatchOptions } from "./options.js";
import { servesStoredBytes } from "./raw-read.js";
import type { RequestContext } from "./request-context.js";
import { apiVersionOf } from "./resource-type.js";
import type { Store } from "./store.js";
import type { StoredWatchEvent } from "./stored-watch-event.js";
import type { ApiWatchEvent, WatchEventType, WatchHandle, WatchSink } from "./watch-events.js";

export type { ApiWatchEvent, WatchEventType, WatchHandle, WatchSink };

/** The annotation on the bookmark that ends the initial events of sendInitialEvents=true. */
const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

export interface WatchSettings {
  /** How often a bookmark is sent to watchers that asked for them. */
  bookmarkIntervalMs: number;
}

/** Rejects watch parameter combinations kube-apiserver rejects (400). */
function checkWatchOptions(options: WatchOptions): void {
  const match = options.resourceVersionMatch;
  if (options.sendInitialEvents !== undefined) {
    if (match !== "NotOlderThan") {
      throw errors.invalid("ListOptions", "meta.k8s.io", "", [
        {
          type: "FieldValueForbidden",
          field: "resourceVersionMatch",
          detail: "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        },
      ]);
    }
    if (options.sendInitialEvents && !options.allowWatchBookmarks) {
      throw errors.invalid("ListOptions", "meta.k8s.io", "", [
        {
          type: "FieldValueForbidden",
          field: "allowWatchBookmarks",
          detail: "allowWatchBookmarks required when sendInitialEvents is true",
        },
      ]);
    }
  } else if (match) {
    throw errors.invalid("ListOptions", "meta.k8s.io", "", [
      {
        type: "FieldValueForbidden",
        field: "resourceVersionMatch",
        detail: "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
      },
    ]);
  }
  requestedRevision(options.resourceVersion);
}

/**
 * A watch as kube-apiserver serves it: optional initial ADDED events, then changes
 * after a revision, filtered by selectors and visibility (an object leaving the
 * filter is a DELETED event, one entering it ADDED), bookmarks, and an ERROR
 * event with 410 Expired when the revision is too old.
 */
export async function watchStore(
  store: Store,
  ctx: RequestContext,
  namespace: string | undefined,
  options: WatchOptions,
  sink: WatchSink,
  settings: WatchSettings,
): Promise<WatchHandle> {
  checkWatchOptions(options);
  const filter = store.filter(ctx, options.labelSelector, options.fieldSelector);
  const rv = parseResourceVersion(options.resourceVersion);
  // A watch from a revision the store has not reached would stay silent: wait a moment, then 504.
  await awaitNotOlderThan(store.storage, options.resourceVersion, options.freshnessWaitMs);
  const wantsInitial =
    options.sendInitialEvents === true || (options.sendInitialEvents === undefined && (rv === undefined || rv === 0));
  let closed = false;
  let lastRevision = 0;

  const stop = () => {
    if (closed) return;
    closed = true;
    clearInterval(bookmarkTimer);
    storageWatch?.close();
    sink.end();
  };
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let storageWatch: { close(): void } | undefined;

  const bookmark = (annotations?: Record<string, string>) =>
    sink.send({
      type: "BOOKMARK",
      object: {
        apiVersion: apiVersionOf(store.rt),
        kind: store.rt.kind,
        metadata: { resourceVersion: String(lastRevision), ...(annotations ? { annotations } : {}) },
      },
    });

  if (wantsInitial) {
    const list = await store.list(ctx, namespace, {
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
    });
    lastRevision = Number(list.metadata.resourceVersion);
    for (const item of list.items) sink.send({ type: "ADDED", object: item });
    if (options.sendInitialEvents) bookmark({ [INITIAL_EVENTS_END_ANNOTATION]: "true" });
  } else {
    lastRevision = rv ?? 0;
  }

  // A stored value that cannot be decoded ends the watch with an ERROR event, as kube's watch of
  // etcd does: the client lists again (and is refused while the value stays corrupt).
  const undecodable = () => {
    sink.send({ type: "ERROR", object: errors.internal("a stored object could not be decoded").status });
    stop();
  };
  const translate = eventTranslator(store, ctx, filter, sink, undecodable);
  // Most watches select nothing and may see everything: on a kind shown as stored, the events of
  // a batch are the same objects for all of them (stored-watch-event.ts), made once per batch.
  const asStored = filter.matchesEverything && servesStoredBytes(store.rt);
  const handle = (ev: WatchEvent, stored: StoredWatchEvent | undefined) => {
    if (closed || ev.revision <= lastRevision) return; // ended, or already covered by the initial list
    lastRevision = ev.revision;
    if (stored) sink.send(stored);
    else translate(ev);
  };

  storageWatch = store.storage.watch(
    collectionPrefix(store.rt, namespace),
    { afterRevision: lastRevision },
    {
      onEvents(events) {
        if (closed) return;
        const stored = asStored ? store.storedEvents.of(events) : undefined;
        for (let i = 0; i < events.length; i++) handle(events[i]!, stored?.[i]);
      },
      onError(err) {
        if (closed) return;
        const apiErr = isStorageError(err, "Compacted")
          ? errors.resourceVersionTooOld()
          : err instanceof ApiError
            ? err
            : errors.internal("watch ended unexpectedly");
        sink.send({ type: "ERROR", object: apiErr.status });
        stop();
      },
    },
  );
  if (options.allowWatchBookmarks) {
    bookmarkTimer = setInterval(() => {
      if (!closed && lastRevision > 0) bookmark();
    }, settings.bookmarkIntervalMs);
    bookmarkTimer.unref();
  }
  return { close: stop };
}

/**
 * A storage event as what this watcher sees: an object entering the filter is ADDED, one
 * leaving it DELETED, one staying in it MODIFIED; nothing for objects outside it.
 */
function eventTranslator(
  store: Store,
  ctx: RequestContext,
  filter: ObjectFilter,
  sink: WatchSink,
  undecodable: () => void,
): (ev: WatchEvent) => void {
  const decode = (kv: KeyValue) => store.decodeForWatch(kv);
  const decodeEventObject = (kv: KeyValue) => {
    try {
      // Every watcher of the prefix gets the same kv: parse it once for all of them.
      return store.versions.decodes.of(kv, decode);
    } catch {
      return undefined;
    }
  };
  // Most watches select nothing and may see everything: no per-event checks for them (and on a
  // kind shown as stored, no decoding either: the caller sends stored events, store.storedEvents).
  const everything = filter.matchesEverything;
  const matches = everything ? () => true : (obj: KubeObject) => filter.matches(obj);
  return (ev) => {
    const isNew = ev.type === "put" && (ev.kv.createRevision === ev.kv.modRevision || !ev.prevKv);
    const obj = decodeEventObject(ev.kv);
    if (!obj) {
      // The unsafe deletion of a value that does not decode (unsafe-delete.ts): who sees
      // everything learns the object is gone; who filters cannot tell whether it was theirs.
      if (ev.type === "delete" && everything) sink.send({ type: "DELETED", object: deletedIdentity(store.rt, ev.kv) });
      else undecodable();
      return;
    }
    if (ev.type === "delete") {
      if (matches(obj)) sink.send({ type: "DELETED", object: store.present(obj, ctx) });
      return;
    }
    const nowMatches = matches(obj);
    // Matching everything, the previous value matched too: it is not decoded.
    const prev = isNew || everything ? undefined : decodeEventObject(ev.prevKv!);
    const wasMatching = isNew ? false : everything || (prev ? matches(prev) : false);
    if (nowMatches && wasMatching) sink.send({ type: "MODIFIED", object: store.present(obj, ctx) });
    else if (nowMatches) sink.send({ type: "ADDED", object: store.present(obj, ctx) });
    else if (wasMatching) sink.send({ type: "DELETED", object: store.present(obj, ctx) });
  };
}
