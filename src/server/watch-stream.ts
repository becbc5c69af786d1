import type { FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { ApiWatchEvent, WatchHandle, WatchSink } from "../registry/store-watch.js";
import { StoredWatchEvent } from "../registry/stored-watch-event.js";
import type { ResponseFormat } from "./negotiation.js";
import { sendError } from "./respond.js";
import { type IncludeObject, objectTable } from "./table.js";
import { type Frame, frameOf, WatchFrames } from "./watch-frame.js";
import { WatchWriter } from "./watch-writer.js";

/** What a watch stream reports: events sent, and its registration while open. */
export interface WatchObserver {
  event(): void;
  end(): void;
}

/** A server's open watch streams, so that shutdown can end them (they would otherwise keep it up). */
export class WatchStreams {
  readonly open = new Set<() => void>();
  /** The frames of the events its watchers share, each built once (watch-frame.ts). */
  readonly frames = new WatchFrames();
  /** Bytes a watch may have queued for a slow client before it is closed with 410. */
  maxBufferedBytes = 4 * 1024 * 1024;
  /** Counts a resource's watches and their events (src/metrics), when set. */
  observe?: (rt: ResourceType) => WatchObserver;
  /** Told when a watch starts streaming (the audit log's ResponseStarted), when set. */
  started?: (request: FastifyRequest) => void;
  closeAll(): void {
    for (const close of [...this.open]) close();
  }
}

/**
 * Streams watch events as newline-delimited JSON (Kubernetes' watch framing). With a
 * Table request each event carries a one-row Table; column definitions come only in the first.
 */
export async function streamWatch(
  request: FastifyRequest,
  reply: FastifyReply,
  format: ResponseFormat,
  timeoutSeconds: number | undefined,
  start: (sink: WatchSink) => Promise<WatchHandle>,
  tableOf: { rt: ResourceType; table?: IncludeObject },
  streams: WatchStreams,
): Promise<FastifyReply> {
  const openStreams = streams.open;
  const res = reply.raw;
  let started = false;
  let ended = false;
  let handle: WatchHandle | undefined;
  /** Frames sent before the watch is established (the initial events) wait here. */
  const pending: Frame[] = [];
  let writer: WatchWriter | undefined;

  const observer = streams.observe?.(tableOf.rt);
  const writeHead = () => {
    if (started) return;
    started = true;
    writer = startStream(request, reply, streams);
    for (const frame of pending) writer.push(frame);
    pending.length = 0;
  };
  const finish = () => {
    if (ended) return;
    ended = true;
    openStreams.delete(finish);
    observer?.end();
    clearTimeout(timer);
    handle?.close();
    writeHead();
    // Queued frames first: res.end() writes the last chunk after them.
    writer!.flush();
    res.end();
  };
  const encode = eventEncoder(tableOf, streams.frames);
  const sink: WatchSink = {
    send(event) {
      if (ended) return;
      observer?.event();
      if (!writer) {
        pending.push(encode(event));
        return;
      }
      writer.push(encode(event));
      // A client that does not read would make this buffer grow without bound: end its watch
      // with 410 (it relists and watches again), as kube-apiserver does for slow watchers.
      if (writer.backlogOver(streams.maxBufferedBytes)) {
        writer.push(encode({ type: "ERROR", object: errors.resourceVersionTooOld().status }));
        finish();
      }
    },
    end: finish,
  };
  const timer = timeoutSeconds !== undefined ? setTimeout(finish, timeoutSeconds * 1000) : undefined;
  request.raw.on("close", finish);
  res.on("close", finish);
  try {
    handle = await start(sink);
  } catch (err) {
    clearTimeout(timer);
    ended = true;
    observer?.end();
    if (!started) return sendError(reply, err, format);
    res.end();
    return reply;
  }
  if (ended) {
    // It ended while starting (finish() sent what it had); the handle came too late to close there.
    handle.close();
    return reply;
  }
  openStreams.add(finish);
  writeHead();
  return reply;
}

/** Sends the response head of a watch; returns the writer of the frames that follow it. */
function startStream(request: FastifyRequest, reply: FastifyReply, streams: WatchStreams): WatchWriter {
  const res = reply.raw;
  reply.hijack();
  res.writeHead(200, {
    "content-type": "application/json",
    "cache-control": "no-cache, private",
    "transfer-encoding": "chunked",
    "x-content-type-options": "nosniff",
  });
  // Send the headers now: clients (client-node's Watch, client-go) wait for them before
  // they consider the watch established, and a quiet watch may not write for a long time.
  res.flushHeaders();
  streams.started?.(request);
  // Frames go straight to the connection, already chunk-framed (the response is hijacked and
  // alone on its connection until it ends); a response that is not chunked (HTTP/1.0) or has
  // no socket of its own gets the bare lines through res.write.
  const chunked = (res as { chunkedEncoding?: boolean }).chunkedEncoding === true;
  return res.socket && chunked ? new WatchWriter(res.socket, true) : new WatchWriter(res, false);
}

/** Event → frame. With a Table request each event carries a one-row Table, column definitions in the first only. */
function eventEncoder(
  tableOf: { rt: ResourceType; table?: IncludeObject },
  frames: WatchFrames,
): (event: ApiWatchEvent) => Frame {
  let columnsSent = false;
  return (event) => {
    if (tableOf.table && (event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED")) {
      const object = objectTable(tableOf.rt, event.object as KubeObject, tableOf.table, !columnsSent);
      columnsSent = true;
      return frameOf(`${JSON.stringify({ type: event.type, object })}\n`);
    }
    // Bookmarks and errors are this watch's own; an event's object is shared by its watchers.
    if (event.type === "BOOKMARK" || event.type === "ERROR") return frameOf(`${JSON.stringify(event)}\n`);
    if (event instanceof StoredWatchEvent) return frames.stored(event.type, event.json);
    return frames.shared(event.type, event.object);
  };
}
