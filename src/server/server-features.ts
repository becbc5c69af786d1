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
import type { ResourceType } from "../registry/resource-type.js";
import type { BodiesAuditable } from "./audited-bodies.js";
import type { FastCreateCounting } from "./fast-create.js";
import type { RequestDone } from "./request-done.js";
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
  /** Runs a callback once when each request is over (a dropped watch included). */
  requestDone: RequestDone;
  /** Which requests' bodies the audit log may keep: resolved as the generic handler resolves them (audited-bodies.ts). */
  bodiesAuditable: BodiesAuditable;
  guarded: Guarded;
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
  /** A GET the fast path (fast-get.ts) answered. */
  fastGetServed?: (rt: ResourceType, namespaced: boolean, seconds: number) => void;
  /** How the fast create path (fast-create.ts) counts its requests. */
  fastCreateCounting?: FastCreateCounting;
  /** Sees each routed request's authentication and passes its outcome on unchanged. */
  authenticated?(p: Promise<RequestContext>): Promise<RequestContext>;
}

/** What answers its own requests and upgrades before fastify routes anything (the cluster gateway): true when it took one. */
export interface ServedBeforeRouting {
  handleRequest(req: IncomingMessage, res: ServerResponse): boolean;
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
}
