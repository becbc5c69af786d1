/**
 * Runs `done` once when a request is over. fastify's onResponse hook runs when a response
 * finishes, but a watch the client drops never finishes (its connection just closes): watches
 * are followed to their response's `close` instead, which comes in every case.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { queryAsksWatch } from "../api/request-verb.js";

type Done = (request: FastifyRequest, reply: FastifyReply) => void;

function isWatchUrl(url: string): boolean {
  const q = url.indexOf("?");
  return q >= 0 && url.includes("watch=", q) && queryAsksWatch(url.slice(q + 1));
}

/** The callbacks of each app, run in the order they were added by one pair of hooks. */
const callbacksOf = new WeakMap<FastifyInstance, Done[]>();

export function onRequestDone(app: FastifyInstance, done: Done): void {
  const known = callbacksOf.get(app);
  if (known) {
    known.push(done);
    return;
  }
  // One pair of hooks for every callback: the request log and the metrics both need it, and
  // each hook is a step of fastify's per-request hook chain plus a look at the URL.
  const all = [done];
  callbacksOf.set(app, all);
  const runAll = (request: FastifyRequest, reply: FastifyReply) => {
    for (const d of all) d(request, reply);
  };
  app.addHook("onRequest", (request, reply, next) => {
    if (isWatchUrl(request.url)) reply.raw.once("close", () => runAll(request, reply));
    next();
  });
  app.addHook("onResponse", (request, reply, next) => {
    if (!isWatchUrl(request.url)) runAll(request, reply);
    next();
  });
}
