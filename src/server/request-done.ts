/**
 * Runs callbacks once when a request is over. fastify's onResponse hook runs when a response
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

/**
 * The callbacks of one app, run in the order they were added, by one pair of hooks: the request
 * log and the metrics both need it, and each hook is a step of fastify's per-request hook chain
 * plus a look at the URL. The server makes one per app and lends it to the features
 * (FeatureContext.requestDone).
 */
export class RequestDone {
  private readonly callbacks: Done[] = [];

  constructor(private readonly app: FastifyInstance) {}

  /** Runs `done` once when each request is over. */
  add(done: Done): void {
    if (this.callbacks.length === 0) this.installHooks();
    this.callbacks.push(done);
  }

  private installHooks(): void {
    const all = this.callbacks;
    const runAll = (request: FastifyRequest, reply: FastifyReply) => {
      for (const d of all) d(request, reply);
    };
    this.app.addHook("onRequest", (request, reply, next) => {
      if (isWatchUrl(request.url)) reply.raw.once("close", () => runAll(request, reply));
      next();
    });
    this.app.addHook("onResponse", (request, reply, next) => {
      if (!isWatchUrl(request.url)) runAll(request, reply);
      next();
    });
  }
}
