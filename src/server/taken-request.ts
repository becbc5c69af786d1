/**
 * A request a fast branch answers itself (fast-get.ts, fast-create.ts), inside the request
 * pipeline (request-pipeline.ts): it is the request the pipeline's stages see (the fields they
 * read of fastify's request), and it writes the answer as fastify's path writes it, then ends the
 * request in the pipeline. So the access log, the metrics and the audit log see it as they see
 * any request, and its answer has the same bytes, Status, Warning headers and request id.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import type { UserInfo } from "../registry/request-context.js";
import { assignedRequestId } from "./request-log.js";
import type { FastPath, PipelineRequest, RequestPipeline } from "./request-pipeline.js";
import { toApiError } from "./respond.js";
import { warningHeaders } from "./warning-headers.js";

/** What every taken request shares: from the server, through the fast branches. */
export interface TakenRequestDeps {
  requests: RequestPipeline;
  /**
   * Tells the audit log who made the request (its RequestReceived event), as authenticate() does
   * on fastify's path; the branch calls it once it knows it answers (callerKnown).
   */
  noteCaller(request: PipelineRequest, user: UserInfo): void;
  /** Where an unexpected error is logged, with the request id (as fastify's request logger does). */
  log: { error(obj: unknown, msg: string): void };
}

export class TakenRequest implements PipelineRequest {
  readonly id: string;
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly socket: IncomingMessage["socket"];
  body?: Buffer;
  userName?: string;
  private answered = false;

  /** Taken: the pipeline's `arrived` stage runs now. `started`: when it arrived (performance.now()). */
  constructor(
    private readonly deps: TakenRequestDeps,
    req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly ip: string,
    private readonly fastPath: FastPath,
    private readonly started: number,
  ) {
    // The front door gave it (and put it on the answer's head).
    this.id = assignedRequestId(req) ?? "";
    this.method = req.method ?? "";
    this.url = req.url ?? "";
    this.headers = req.headers;
    this.socket = req.socket;
    deps.requests.arrived(this);
  }

  /** The caller, once the branch knows it answers: the access line's user, the audit's RequestReceived. */
  callerKnown(user: UserInfo): void {
    this.userName = user.name;
    this.deps.noteCaller(this, user);
  }

  /**
   * Reads a body of announced `length` (within the body limit: the branch took only such), then
   * runs `then` guarded. A client that goes away before its body arrived gets no answer: the
   * request ends in the pipeline as fastify's error handler ends it then, a 400.
   */
  readBody(req: IncomingMessage, length: number, then: (raw: Buffer) => void): void {
    const chunks: Buffer[] = [];
    let ended = false;
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      ended = true;
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
      this.guard(() => then(raw));
    });
    const gone = () => {
      if (!ended) this.finish(400);
    };
    req.on("error", gone);
    req.on("aborted", gone);
  }

  /** Writes the answer (once; a response already gone only ends the request) and ends the request. */
  answer(
    code: number,
    contentType: string,
    payload: Buffer | string,
    warnings: readonly string[],
    extra?: OutgoingHttpHeaders,
  ): void {
    if (this.answered) return;
    const res = this.res;
    if (!res.headersSent && !res.destroyed) {
      this.deps.requests.sending(this, payload);
      const headers: Record<string, string | number | string[]> = {
        ...extra,
        "content-type": contentType,
        "content-length": Buffer.byteLength(payload),
      };
      if (warnings.length) headers.warning = warningHeaders(warnings);
      res.writeHead(code, headers);
      res.end(payload);
    }
    this.finish(code);
  }

  /** The Status of any failure, as sendError (respond.ts) writes it: without the request's warnings. */
  fail(err: unknown): void {
    const log = {
      error: (obj: unknown, msg: string) => this.deps.log.error({ requestId: this.id, ...(obj as object) }, msg),
    };
    const apiErr = toApiError(err, log);
    const extra: OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(apiErr.headers)) extra[k.toLowerCase()] = v;
    // fastify adds the charset to a JSON text it sends.
    this.answer(apiErr.status.code, "application/json; charset=utf-8", JSON.stringify(apiErr.status), [], extra);
  }

  /**
   * Runs a step of the answer; whatever it throws is answered as fastify's error handler answers
   * it, and never escapes (an event handler's or a promise callback's throw would take the process
   * down, where fastify would have caught it).
   */
  guard(step: () => void): void {
    try {
      step();
    } catch (err) {
      try {
        this.fail(err);
      } catch {
        this.res.destroy();
        this.finish(500);
      }
    }
  }

  private finish(code: number): void {
    if (this.answered) return;
    this.answered = true;
    const elapsedTime = performance.now() - this.started;
    this.deps.requests.done(this, { statusCode: code, elapsedTime, raw: this.res, fastPath: this.fastPath });
  }
}
