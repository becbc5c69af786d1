import type { FastifyReply, FastifyRequest } from "fastify";
import type { KubeObject } from "../api/object.js";
import type { ResourceType } from "../registry/resource-type.js";
import type { ApiWatchEvent, WatchHandle, WatchSink } from "../registry/store-watch.js";
import type { ResponseFormat } from "./negotiation.js";
import { sendError } from "./respond.js";
import { type IncludeObject, objectTable } from "./table.js";

/** A server's open watch streams, so that shutdown can end them (they would otherwise keep it up). */
export class WatchStreams {
  readonly open = new Set<() => void>();
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
  let columnsSent = false;
  const pending: string[] = [];

  const writeHead = () => {
    if (started) return;
    started = true;
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
  };
  const finish = () => {
    if (ended) return;
    ended = true;
    openStreams.delete(finish);
    clearTimeout(timer);
    handle?.close();
    if (!started) {
      writeHead();
      for (const chunk of pending) res.write(chunk);
      pending.length = 0;
    }
    res.end();
  };
  const encode = (event: ApiWatchEvent): string => {
    let object: unknown = event.object;
    if (tableOf.table && (event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED")) {
      object = objectTable(tableOf.rt, event.object as KubeObject, tableOf.table, !columnsSent);
      columnsSent = true;
    }
    return `${JSON.stringify({ type: event.type, object })}\n`;
  };
  const sink: WatchSink = {
    send(event) {
      if (ended) return;
      if (!started) {
        pending.push(encode(event));
        return;
      }
      res.write(encode(event));
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
    if (!started) return sendError(reply, err, format);
    res.end();
    return reply;
  }
  if (ended) {
    handle.close();
    if (!started) {
      writeHead();
      for (const chunk of pending) res.write(chunk);
      res.end();
    }
    return reply;
  }
  openStreams.add(finish);
  writeHead();
  for (const chunk of pending) res.write(chunk);
  pending.length = 0;
  return reply;
}
