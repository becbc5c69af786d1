/**
 * The hook points through which cross-cutting features (metrics, the audit log, the web console,
 * backup, the cluster gateway) install themselves into the API server. The composition root
 * (src/app) builds each feature and hands it to createApiServer(); the server calls the hooks at
 * fixed points and never imports a feature, as kube-apiserver's generic server takes handler
 * chains and hooks from whoever assembles it. The features sit above the server and may use it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Authorizer } from "../authz/contract.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import type { BodiesAuditable } from "./audited-bodies.js";
import type { RequestPipeline } from "./request-pipeline.js";
import type { WatchStreams } from "./watch-stream.js";

/** A route handler wrapped with authentication (of its caller) and errors written as Kubernetes `Status`. */
export type Guarded = (
  handler: (request: FastifyRequest, reply: FastifyReply, ctx: RequestContext) => Promise<unknown>,
) => (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** What the server lends a feature when it installs it. */
export interface FeatureContext {
  registry: Registry;
  authorizer: Authorizer;
  /** The custom subresources served, keyed `plural/subresource` (ApiServerDeps.subresources). */
  subresources: ReadonlyMap<string, unknown>;
  /** The server's open watch streams: a feature may observe them (`observe`, `started`). */
  watchStreams: WatchStreams;
  /** Which requests' bodies the audit log may keep: resolved as the generic handler resolves them (audited-bodies.ts). */
  bodiesAuditable: BodiesAuditable;
  guarded: Guarded;
  /**
   * The stages every request passes, whichever branch answers it (request-pipeline.ts): a
   * feature that sees every request (the metrics, the audit log) joins them, not fastify's hooks.
   */
  requests: RequestPipeline;
  /** The caller of a request, as every API route authenticates it. */
  authenticate(request: Pick<FastifyRequest, "ip" | "method" | "headers">): Promise<RequestContext>;
}

export interface ServerFeature {
  /** Request hooks (fastify's, the watch streams'), installed before any route, in the features' order. */
  installHooks?(app: FastifyInstance, server: FeatureContext): void;
  /** Routes of its own, registered beside the API's. */
  addRoutes?(app: FastifyInstance, server: FeatureContext): void;
}

/** Observers of the server's own request paths (the metrics count through them); each optional. */
export interface RequestObservers {
  /**
   * Sees each routed request's authentication and passes its outcome on unchanged. (A fast
   * branch's caller authenticated at once from the identity cache: its answer says so, through
   * the pipeline's `done` stage.)
   */
  authenticated?(p: Promise<RequestContext>): Promise<RequestContext>;
}

/** What answers its own requests and upgrades before fastify routes anything (the cluster gateway): true when it took one. */
export interface ServedBeforeRouting {
  handleRequest(req: IncomingMessage, res: ServerResponse): boolean;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
}
