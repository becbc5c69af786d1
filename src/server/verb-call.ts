/**
 * What the resource endpoints' handlers take: the server's parts (ResourceHandlerDeps), one
 * request as every verb handler gets it (VerbCall), and the shape of a custom subresource's
 * handler. Types of their own, so that resource-handler.ts, resource-verbs.ts and the verbs in
 * files of their own (unsafe-delete.ts) share them without importing each other.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Authorizer, RequestAttributes } from "../authz/contract.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import type { ResponseFormat } from "./negotiation.js";
import type { Query } from "./query.js";
import type { ResourcePath } from "./resource-path.js";
import type { IncludeObject } from "./table.js";
import type { WatchStreams } from "./watch-stream.js";

/** A handler for a custom subresource (kubeconfig, importvirtualcluster, accesskeys…). */
export type SubresourceHandler = (args: {
  request: FastifyRequest;
  reply: FastifyReply;
  ctx: RequestContext;
  path: ResourcePath;
  format: ResponseFormat;
  raw: Buffer;
  authorize: (attrs: Partial<RequestAttributes> & { verb: string }) => Promise<void>;
}) => Promise<unknown>;

export interface ResourceHandlerDeps {
  registry: Registry;
  authorizer: Authorizer;
  /** Keyed `plural/subresource`; the method is checked by the handler itself. */
  subresources: Map<string, SubresourceHandler>;
  bookmarkIntervalMs: number;
  /** How long a GET, list or watch waits for a resourceVersion ahead of the store before 504. */
  freshnessWaitMs?: number;
  watchStreams: WatchStreams;
}

/** One request on a resource endpoint, as every verb handler gets it. */
export interface VerbCall {
  deps: ResourceHandlerDeps;
  request: FastifyRequest;
  reply: FastifyReply;
  ctx: RequestContext;
  path: ResourcePath;
  query: Query;
  format: ResponseFormat;
  /** `?includeObject` of a Table response (undefined: not a Table). */
  table: IncludeObject | undefined;
  raw: Buffer;
  /** "status" for the status subresource, else "". */
  subresource: "" | "status";
  /** Asks the authorizer (reading the object when its access rules decide); 403 when refused. */
  authorize(attrs: Partial<RequestAttributes> & { verb: string }): Promise<void>;
}
