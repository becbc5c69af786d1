/**
 * Runs `done` once when a request is over. fastify's onResponse hook runs when a response
 * finishes, but a watch the client drops never finishes (its connection just closes): watches
 * are followed to their response's `close` instead, which comes in every case.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { queryAsksWatch } from "../api/request-verb.js";

export function isWatchUrl(url: string): boolean {
  const q = url.indexOf("?");
  return q >= 0 && url.includes("watch=", q) && queryAsksWatch(url.slice(q + 1));
}

export function onRequestDone(
  app: FastifyInstance,
  done: (request: FastifyRequest, reply: FastifyReply) => void,
): void {
  app.addHook("onRequest", (request, reply, next) => {
    if (isWatchUrl(request.url)) reply.raw.once("close", () => done(request, reply));
    next();
  });
  app.addHook("onResponse", (request, reply, next) => {
    if (!isWatchUrl(request.url)) done(request, reply);
    next();
  });
}
