/**
 * The events a watch sends and what it sends them to: types of their own, so that the store's
 * watch (store-watch.ts) and the events it builds from stored bytes (stored-watch-event.ts)
 * both use them without importing each other.
 */
import type { Status } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface ApiWatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
}

export interface WatchSink {
  send(event: ApiWatchEvent): void;
  /** The watch is over (an ERROR event was already sent when it failed). */
  end(): void;
}

export interface WatchHandle {
  close(): void;
}
