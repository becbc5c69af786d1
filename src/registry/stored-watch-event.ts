/**
 * Watch events sent as the object's stored bytes: for a watch that selects nothing and may see
 * everything, on a kind whose stored bytes are what callers see (servesStoredBytes: no
 * fromStorage, no present), the API JSON of an event's object is its stored bytes with the
 * resourceVersion spliced in, as the GET and LIST fast paths answer, once that version's bytes
 * passed the fast paths' check (stored-versions.ts: parsed once per version, not per watcher). The HTTP
 * watch writes those bytes (server/watch-frame.ts, WatchFrames.stored) without parsing or stringifying
 * the object.
 *
 * Every write reaches every replica's watchers: decoding each event's object (and its previous
 * value) and encoding it again cost each replica about as much CPU per write as the watch
 * delivery itself, and the decoded copies, kept for sharing (shared-codec.ts), lived long enough
 * to be promoted to the old generation, where each write's garbage then waited for a full GC.
 *
 * `object` stays available for consumers that need it (a Table, the events' visibility filter):
 * it is decoded on first access, shared with every other watcher (the registry's SharedDecodes).
 */
import type { KubeObject } from "../api/object.js";
import type { KeyValue, WatchEvent } from "../storage/interface.js";
import type { ResourceType } from "./resource-type.js";
import type { StoredVersions } from "./stored-versions.js";
import type { ApiWatchEvent } from "./watch-events.js";

export class StoredWatchEvent implements ApiWatchEvent {
  constructor(
    readonly type: "ADDED" | "MODIFIED" | "DELETED",
    /** The object's API JSON: its stored bytes with the resourceVersion spliced in. */
    readonly json: Buffer,
    private readonly decode: () => KubeObject,
  ) {}

  get object(): KubeObject {
    return this.decode();
  }
}

/** What decodes a stored value for a watch (the Store), with what is known of each version. */
export interface WatchDecoder {
  readonly rt: ResourceType;
  readonly versions: StoredVersions;
  decodeForWatch(kv: KeyValue): KubeObject;
}

/**
 * The StoredWatchEvent of each event of a batch (undefined where the bytes may not be sent as
 * they are), for the watches of one kind that see every event as stored. A watch cache hands the
 * same batch to each of its watchers in a row: the last batch's are kept, so they are made once
 * per batch, not once per watcher, and every watcher sends the same event objects (whose wire
 * frame is then built once too, server/watch-frame.ts). One per Store (its decoder).
 */
export class StoredEventBatches {
  private last: {
    events: readonly WatchEvent[] | undefined;
    stored: readonly (StoredWatchEvent | undefined)[];
  } = { events: undefined, stored: [] };

  constructor(private readonly decoder: WatchDecoder) {}

  of(events: readonly WatchEvent[]): readonly (StoredWatchEvent | undefined)[] {
    if (events === this.last.events) return this.last.stored;
    const { rt, versions } = this.decoder;
    const decode = (kv: KeyValue) => this.decoder.decodeForWatch(kv);
    const stored = events.map((ev) => {
      // Checked once per version (stored-versions.ts): a value that is not what the decoding path
      // would send is left to it (translate: a corrupt one ends the watch with an ERROR event).
      const json = versions.eventBytes(rt, ev.kv);
      if (json === undefined) return undefined;
      const isNew = ev.type === "put" && (ev.kv.createRevision === ev.kv.modRevision || !ev.prevKv);
      const type = ev.type === "delete" ? "DELETED" : isNew ? "ADDED" : "MODIFIED";
      return new StoredWatchEvent(type, json, () => versions.decodes.of(ev.kv, decode));
    });
    this.last = { events, stored };
    return stored;
  }
}
