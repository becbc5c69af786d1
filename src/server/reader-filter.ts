import { errors } from "../api/errors.js";
import type { KubeList, KubeObject } from "../api/object.js";
import { groupResource, type ReaderFilter, type ResourceType } from "../registry/resource-type.js";
import type { WatchSink } from "../registry/store-watch.js";

/**
 * A kind's readerFilter (resource-type.ts) on the generic handler's reads: what the reader may
 * not see is left out of lists and watches, and a get of it is 404 like an object that is not there.
 */

/** The object, or 404 when the reader may not see it (its name alone may tell what it is about). */
export async function shownOrNotFound(rt: ResourceType, filter: ReaderFilter, obj: KubeObject): Promise<KubeObject> {
  if (await filter(obj)) return obj;
  throw errors.notFound(groupResource(rt), obj.metadata.name ?? "");
}

/** The list with only what the reader sees; without remainingItemCount, which would count the others. */
export async function shownItems(list: KubeList, filter: ReaderFilter): Promise<KubeList> {
  const shown = await Promise.all(list.items.map(filter));
  const items = list.items.filter((_, i) => shown[i]);
  const { remainingItemCount: _hidden, ...metadata } = list.metadata;
  return { ...list, metadata, items };
}

/** The watch's events in their order, each object only when the reader sees it. */
export function shownEvents(sink: WatchSink, filter: ReaderFilter): WatchSink {
  let chain = Promise.resolve();
  return {
    send(event) {
      chain = chain.then(async () => {
        const shown =
          event.type === "BOOKMARK" ||
          event.type === "ERROR" ||
          (await filter(event.object as KubeObject).catch(() => false));
        if (shown) sink.send(event);
      });
    },
    end() {
      chain = chain.then(() => sink.end());
    },
  };
}
