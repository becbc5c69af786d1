/**
 * The hot write — a plain JSON create — answered by a branch of the request pipeline, without fastify's routing.
 *
 * fastify's routing, request and reply objects, child logger, content-type parser and hook
 * chains cost a create about as much CPU as the whole admission pipeline (a CPU profile of the
 * bench's CREATE phase shows it; docs/performance.md). Like the fast GET path (fast-get.ts), this one decides from
 * the request's head alone, before a byte of the body is read, whether it can answer: a POST to
 * a collection of the management group without a query string, a JSON body of announced length
 * within the body limit, a JSON answer, a caller the identity cache knows, an allow the authorizer
 * decides at once and no impersonation. Everything else goes to the normal handler untouched.
 *
 * Once it takes a request it answers it whole, as the normal path would, inside the request
 * pipeline (front-door.ts, taken-request.ts): the same decoding, write options, store call and
 * answer bytes, every failure as the same Kubernetes Status, the request id and Warning headers,
 * and the same access line, metrics and audit events. The checks the normal path makes before
 * the store call (the verb, the path, the authorization) are the conditions above.
 */
import type { IncomingMessage } from "node:http";
import { LruMap } from "toad-cache";
import type { KubeObject } from "../api/object.js";
import type { RequestAttributes } from "../authz/contract.js";
import { asksToImpersonate } from "../authz/impersonation.js";
import type { WriteOptions } from "../registry/options.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import { decodeJsonBody } from "./body.js";
import type { FastPathDeps } from "./fast-get.js";
import type { FastBranch } from "./front-door.js";
import { negotiateResponse } from "./negotiation.js";
import { writeOptions } from "./query.js";
import { resourceAttributes } from "./resource-handler.js";
import { type ResourcePath, resolveResourcePath } from "./resource-path.js";
import { TakenRequest } from "./taken-request.js";
import { peerAddress } from "./trusted-proxies.js";

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

export interface FastCreateDeps extends FastPathDeps {
  /** Bodies announcing more bytes than this go to the normal path (its 413). */
  maxBodyBytes: number;
}

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

/** Takes the request (true: it answers it) or touches nothing (false); it never hands one on. */
export function fastCreate(deps: FastCreateDeps): FastBranch {
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
    const taken = new TakenRequest(deps, req, res, ip, "create", performance.now());
    const creating = new FastCreateRequest(taken, collection.path, ctx, optionsFor(h["user-agent"] ?? ""));
    taken.readBody(req, length, (raw) => creating.create(raw));
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
  constructor(
    private readonly taken: TakenRequest,
    private readonly path: ResourcePath,
    private readonly ctx: RequestContext,
    /** The options of a create without a query, for this request's User-Agent. */
    private readonly baseOptions: WriteOptions,
  ) {}

  /** Once its body arrived. */
  create(raw: Buffer): void {
    const { path, ctx, taken } = this;
    // Known once the body arrived, as on fastify's path (which authenticates after reading it).
    taken.body = raw;
    taken.callerKnown(ctx.user);
    let created: Promise<KubeObject>;
    try {
      // The Content-Type is application/json (a condition of the path).
      const body = decodeJsonBody(raw);
      const options = { ...this.baseOptions, duplicateFields: body.duplicates, bodyOwned: true };
      created = path.store.create(ctx, path.namespace, body.value as KubeObject, options);
    } catch (err) {
      taken.fail(err);
      return;
    }
    created.then(
      (obj) => taken.guard(() => this.succeed(obj)),
      (err: unknown) => taken.guard(() => taken.fail(err)),
    );
  }

  /** 201 with the stored bytes and the resourceVersion spliced in, as the normal path's sendObject. */
  private succeed(obj: KubeObject): void {
    const bytes = this.path.store.writtenJson(obj);
    // fastify adds the charset to a JSON text it sends, not to bytes.
    if (bytes) this.taken.answer(201, "application/json", bytes, this.ctx.warnings);
    else this.taken.answer(201, "application/json; charset=utf-8", JSON.stringify(obj), this.ctx.warnings);
  }
}
