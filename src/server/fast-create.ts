/**
 * The hot write — a plain JSON create — served before fastify routes the request.
 *
 * fastify's routing, request and reply objects, child logger, content-type parser and hook
 * chains cost a create about as much CPU as the whole admission pipeline (a CPU profile of the
 * bench's CREATE phase shows it; docs/performance.md). Like the fast GET path (fast-get.ts), this one decides from
 * the request's head alone, before a byte of the body is read, whether it can answer: a POST to
 * a collection of the management group without a query string, a JSON body of announced length
 * within the body limit, a JSON answer, a caller the identity cache knows, an allow the authorizer
 * decides at once, no impersonation, no audit log (authenticate() says so) and no access log
 * (bypassed()). Everything else goes to the normal handler untouched.
 *
 * Once it takes a request it answers it whole, as the normal path would: the same decoding, write
 * options, store call and answer bytes, every failure as the same Kubernetes Status (the same
 * toApiError), the request id, Warning headers and the request metrics. The checks the normal path
 * makes before the store call (the verb, the path, the authorization) are the conditions above.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { LruMap } from "toad-cache";
import type { KubeObject } from "../api/object.js";
import type { RequestAttributes } from "../authz/contract.js";
import { asksToImpersonate } from "../authz/impersonation.js";
import type { WriteOptions } from "../registry/options.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import type { ResourceType } from "../registry/resource-type.js";
import { decodeJsonBody } from "./body.js";
import type { FastPathDeps } from "./fast-get.js";
import { negotiateResponse } from "./negotiation.js";
import { writeOptions } from "./query.js";
import { resourceAttributes } from "./resource-handler.js";
import { type ResourcePath, resolveResourcePath } from "./resource-path.js";
import { toApiError } from "./respond.js";
import { peerAddress } from "./trusted-proxies.js";
import { warningHeaders } from "./warning-headers.js";

/** The longest path below the group prefix fastify's router matches (its maxParamLength). */
const MAX_REST_LENGTH = 1000;

/**
 * What the path learns once per distinct URL, Accept and User-Agent (a handful each: collections
 * of a few kinds, a few clients), kept instead of worked out again on every create; bounded all
 * the same, since any caller can send new ones.
 */
const MAX_REMEMBERED = 256;

/** The least recently used forgotten first, past MAX_REMEMBERED. */
class Remembered<V> {
  private readonly known = new LruMap<V>(MAX_REMEMBERED);
  get(key: string): V | undefined {
    return this.known.get(key);
  }
  set(key: string, value: V): V {
    this.known.set(key, value);
    return value;
  }
}

/** How a create is counted (src/metrics/request-metrics.ts FastCreateMetrics). */
export interface FastCreateCounting {
  /** A create taken: in flight from now, and its caller authenticated. */
  started(): void;
  /** Answered with `code` after `seconds`. */
  finished(rt: ResourceType, namespaced: boolean, code: number, seconds: number): void;
  /** The client went away before its body arrived: no longer in flight, and nothing answered. */
  abandoned(): void;
}

export interface FastCreateDeps extends FastPathDeps {
  /** Bodies announcing more bytes than this go to the normal path (its 413). */
  maxBodyBytes: number;
  /** The request id returned in X-Request-Id (src/server/request-log.ts): always, here. */
  requestId(headers: IncomingMessage["headers"]): string;
  /** Where an unexpected error is logged, with the request id (as fastify's request logger does). */
  log: { error(obj: unknown, msg: string): void };
  counting?: FastCreateCounting;
}

/** Takes the request (true: it answers it) or touches nothing (false). */
export type FastCreate = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * A collection the fast path creates in, as remembered per URL: the resolved path and the
 * attributes of a create in it (frozen: one copy serves every request, and the authorizer only
 * reads them).
 *
 * This is fast-get.ts's HotPathCache for collections, and not that class itself: HotPathCache
 * remembers a GET's attributes and a named object's storage key (a create's URL names a
 * collection: no key, other attributes), and it remembers only paths that resolve (a bad one
 * throws each time, which costs a GET nothing: the normal handler parses it anyway), whereas
 * this path remembers a URL it does not serve as null too, so a client sending it again is
 * sent on without a thrown error. What neither remembers is the caller's identity or an
 * authorization decision: the identity cache (authenticate()) and the authorizer's cached
 * roles already answer those at once, and a decision depends on grants that change while the
 * server runs, not on the path alone.
 */
interface Collection {
  readonly path: ResourcePath;
  readonly createAttributes: RequestAttributes;
}

export function fastCreate(deps: FastCreateDeps): FastCreate {
  // Per URL: the collection it creates in, or null when the fast path does not serve it.
  const collections = new Remembered<Collection | null>();
  // Per Accept header: whether the answer is JSON (false: the normal path answers it, 406 or another format).
  const accepts = new Remembered<boolean>();
  const collectionOf = (url: string): Collection | null => {
    const known = collections.get(url);
    if (known !== undefined) return known;
    const path = creatableCollection(deps.registry, url.slice(deps.groupPrefix.length));
    return collections.set(url, path && { path, createAttributes: Object.freeze(resourceAttributes(path, "create")) });
  };
  const answersJson = (accept: string): boolean => accepts.get(accept) ?? accepts.set(accept, acceptsJson(accept));
  // Per User-Agent: the options of a create without a query (they depend on it alone: the default field manager).
  const userAgentOptions = new Remembered<WriteOptions>();
  const optionsFor = (agent: string): WriteOptions =>
    userAgentOptions.get(agent) ?? userAgentOptions.set(agent, writeOptions({}, agent, "CreateOptions"));
  return (req, res) => {
    if (req.method !== "POST") return false;
    const url = req.url ?? "";
    const prefix = deps.groupPrefix;
    if (!url.startsWith(prefix) || url.includes("?") || url.length - prefix.length > MAX_REST_LENGTH) return false;
    const h = req.headers;
    const length = plainBodyLength(h, deps.maxBodyBytes);
    if (length === 0 || h["content-type"] !== "application/json" || deps.bypassed() || asksToImpersonate(h))
      return false;
    if (h.accept !== undefined && !answersJson(h.accept)) return false;
    const collection = collectionOf(url);
    if (!collection) return false;
    const ip = (deps.clientAddress ?? peerAddress)(req);
    const ctx = deps.authenticate({ ip, headers: h });
    if (!ctx || !deps.allows(ctx.user, collection.createAttributes)) return false;
    new FastCreateRequest(deps, req, res, collection.path, ctx, optionsFor(h["user-agent"] ?? "")).readBody(length);
    return true;
  };
}

/** The collection a create at `rest` goes to, when it is one the fast path serves; else null. */
function creatableCollection(registry: Registry, rest: string): ResourcePath | null {
  let path: ResourcePath;
  try {
    path = resolveResourcePath(registry, rest);
  } catch {
    // A bad path: the normal handler answers it properly.
    return null;
  }
  const { rt } = path;
  if (path.name || path.subresource || rt.virtualCreate || !rt.verbs.includes("create")) return null;
  if (rt.namespaced && path.namespace === undefined) return null;
  return path;
}

/** Whether the answer to `accept` is JSON (false also when nothing is acceptable: the normal path's 406). */
function acceptsJson(accept: string): boolean {
  try {
    return negotiateResponse(accept, false).encoding === "json";
  } catch {
    return false;
  }
}

/** Content-Length when it is a plain decimal within the limit and nothing else frames the body; else 0. */
function plainBodyLength(h: IncomingMessage["headers"], max: number): number {
  const given = h["content-length"];
  if (given === undefined || h["transfer-encoding"] !== undefined || !/^\d{1,8}$/.test(given)) return 0;
  const n = Number(given);
  return n <= max ? n : 0;
}

/** One create taken by the fast path, from its body to its answer. */
class FastCreateRequest {
  private readonly started = performance.now();
  private readonly id: string;
  private answered = false;

  constructor(
    private readonly deps: FastCreateDeps,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly path: ResourcePath,
    private readonly ctx: RequestContext,
    /** The options of a create without a query, for this request's User-Agent. */
    private readonly baseOptions: WriteOptions,
  ) {
    this.id = deps.requestId(req.headers);
    deps.counting?.started();
  }

  readBody(length: number): void {
    const chunks: Buffer[] = [];
    const req = this.req;
    let ended = false;
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      ended = true;
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
      this.guard(() => this.create(raw));
    });
    // The client went away before its body arrived: nobody reads an answer.
    const gone = () => {
      if (ended || this.answered) return;
      this.answered = true;
      this.deps.counting?.abandoned();
    };
    req.on("error", gone);
    req.on("aborted", gone);
  }

  private create(raw: Buffer): void {
    const { path, ctx } = this;
    let created: Promise<KubeObject>;
    try {
      // The Content-Type is application/json (a condition of the path).
      const body = decodeJsonBody(raw);
      const options = { ...this.baseOptions, duplicateFields: body.duplicates, bodyOwned: true };
      created = path.store.create(ctx, path.namespace, body.value as KubeObject, options);
    } catch (err) {
      this.fail(err);
      return;
    }
    created.then(
      (obj) => this.guard(() => this.succeed(obj)),
      (err: unknown) => this.guard(() => this.fail(err)),
    );
  }

  /**
   * Runs a step of the answer; whatever it throws is answered as the normal path's error handler
   * answers it, and never escapes (an event handler's or a promise callback's throw would take
   * the process down, where fastify's own would have caught it).
   */
  private guard(step: () => void): void {
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

  /** 201 with the stored bytes and the resourceVersion spliced in, as the normal path's sendObject. */
  private succeed(obj: KubeObject): void {
    const bytes = this.path.store.writtenJson(obj);
    // fastify adds the charset to a JSON text it sends, not to bytes.
    if (bytes) this.write(201, "application/json", bytes, this.ctx.warnings);
    else this.write(201, "application/json; charset=utf-8", JSON.stringify(obj), this.ctx.warnings);
  }

  /** The Status of any failure, as sendError writes it (without the request's warnings, as there). */
  private fail(err: unknown): void {
    const log = {
      error: (obj: unknown, msg: string) => this.deps.log.error({ requestId: this.id, ...(obj as object) }, msg),
    };
    const apiErr = toApiError(err, log);
    const extra: Record<string, string> = {};
    for (const [k, v] of Object.entries(apiErr.headers)) extra[k.toLowerCase()] = v;
    this.write(apiErr.status.code, "application/json; charset=utf-8", JSON.stringify(apiErr.status), [], extra);
  }

  private write(
    code: number,
    contentType: string,
    payload: Buffer | string,
    warnings: readonly string[],
    extra?: Record<string, string>,
  ): void {
    const res = this.res;
    if (this.answered || res.headersSent || res.destroyed) {
      this.finish(code);
      return;
    }
    const headers: Record<string, string | number | string[]> = {
      "x-request-id": this.id,
      ...extra,
      "content-type": contentType,
      "content-length": Buffer.byteLength(payload),
    };
    if (warnings.length) headers.warning = warningHeaders(warnings);
    res.writeHead(code, headers);
    res.end(payload);
    this.finish(code);
  }

  private finish(code: number): void {
    if (this.answered) return;
    this.answered = true;
    const seconds = (performance.now() - this.started) / 1000;
    this.deps.counting?.finished(this.path.rt, this.path.namespace !== undefined, code, seconds);
  }
}
