/**
 * The stages every API request passes, whichever branch answers it: fastify's routing, or a fast
 * branch that answers a plain request itself (fast-get.ts, fast-create.ts, through
 * taken-request.ts). The cross-cutting features (the access log, the metrics, the audit log) join
 * the stages here, once, and see every request alike: a fast branch is a way of answering inside
 * the pipeline, not a way around it.
 *
 * - `arrived`: the request is taken (fastify's onRequest; a fast branch when it takes one);
 * - `sending`: the answer's body is about to go out (fastify's onSend payload; a fast branch's bytes);
 * - `done`: the request is over, answered or its client gone. fastify's onResponse comes when a
 *   response finishes, but a watch the client drops never finishes (its connection just closes):
 *   watches are followed to their response's `close` instead, which comes in every case.
 */
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { queryAsksWatch } from "../api/request-verb.js";

/** What the stages read of a request: fastify's request has all of it, and so has a fast branch's. */
export interface PipelineRequest {
  /** The request id (request-log.ts), returned in X-Request-Id. */
  readonly id: string;
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The connection: its peer is the last of the audit's source IPs. */
  readonly socket: { remoteAddress?: string };
  /** The client's address (`--trusted-proxies`: trusted-proxies.ts). */
  readonly ip: string;
  /** The body as read (bytes), once read. */
  readonly body?: unknown;
  /** The authenticated caller's name, once known (the access line). */
  userName?: string;
}

/** The fast branches, as the `done` stage names them. */
export type FastPath = "get" | "create";

/** How a request was answered. */
export interface PipelineAnswer {
  readonly statusCode: number;
  /** Milliseconds from the request's arrival to the end of its answer. */
  readonly elapsedTime: number;
  readonly raw: ServerResponse;
  /** The fast branch that answered it; undefined: fastify routed it. */
  readonly fastPath?: FastPath;
}

/** What a feature does at each stage; each optional. */
export interface RequestStages {
  arrived?(request: PipelineRequest): void;
  /** The payload as fastify's onSend sees it: a JSON text, or bytes sent as they are. */
  sending?(request: PipelineRequest, payload: unknown): void;
  done?(request: PipelineRequest, answer: PipelineAnswer): void;
}

function isWatchUrl(url: string): boolean {
  const q = url.indexOf("?");
  return q >= 0 && url.includes("watch=", q) && queryAsksWatch(url.slice(q + 1));
}

export class RequestPipeline {
  private readonly onArrival: Array<(request: PipelineRequest) => void> = [];
  private readonly onSending: Array<(request: PipelineRequest, payload: unknown) => void> = [];
  private readonly onDone: Array<(request: PipelineRequest, answer: PipelineAnswer) => void> = [];

  /** A feature's stages, run after those that joined before it. */
  join(stages: RequestStages): void {
    if (stages.arrived) this.onArrival.push(stages.arrived.bind(stages));
    if (stages.sending) this.onSending.push(stages.sending.bind(stages));
    if (stages.done) this.onDone.push(stages.done.bind(stages));
  }

  arrived(request: PipelineRequest): void {
    for (const stage of this.onArrival) stage(request);
  }

  sending(request: PipelineRequest, payload: unknown): void {
    for (const stage of this.onSending) stage(request, payload);
  }

  done(request: PipelineRequest, answer: PipelineAnswer): void {
    for (const stage of this.onDone) stage(request, answer);
  }

  /**
   * fastify's hooks that run the stages for the requests it routes: one of each kind (each is a
   * step of fastify's per-request hook chain), and onSend only when some stage reads bodies.
   * After the features joined, before any route.
   */
  runInFastify(app: FastifyInstance): void {
    const done = (request: FastifyRequest, reply: FastifyReply) => this.done(request, reply);
    app.addHook("onRequest", (request, reply, next) => {
      this.arrived(request);
      if (isWatchUrl(request.url)) reply.raw.once("close", () => done(request, reply));
      next();
    });
    if (this.onSending.length > 0) {
      app.addHook("onSend", async (request, _reply, payload) => {
        this.sending(request, payload);
        return payload;
      });
    }
    app.addHook("onResponse", (request, reply, next) => {
      if (!isWatchUrl(request.url)) done(request, reply);
      next();
    });
  }
}
