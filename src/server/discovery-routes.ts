import { createHash } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import { API_PREFIX, GROUP, VERSION } from "../api/object.js";
import type { Authorizer } from "../authz/contract.js";
import type { Registry } from "../registry/registry.js";
import { apiVersions, coreAggregatedDiscovery, coreResourceList } from "./core-discovery.js";
import { authorizeCreateOnly, registerCreateOnlyMethods } from "./create-only-methods.js";
import {
  AGGREGATED_DISCOVERY_V2,
  aggregatedDiscovery,
  apiGroupList,
  apiResourceList,
  extraResourceList,
  REVIEW_GROUPS,
  wantsAggregatedDiscovery,
} from "./discovery.js";
import { namespaceResource } from "./namespaces.js";
import { negotiateResponse } from "./negotiation.js";
import { buildOpenApi } from "./openapi.js";
import { openApiV2Handler } from "./openapi-v2-route.js";
import { type Query, writeOptions } from "./query.js";
import { send } from "./respond.js";
import { decodeReviewBody } from "./review-body.js";
import type { Guarded } from "./server-features.js";

/**
 * Older versions of a review kind that clients still post to, with the same fields: kubectl
 * 1.27's `auth whoami` posts authentication.k8s.io/v1beta1 (v1 came with 1.28). Not listed in
 * discovery, which names the served version only.
 */
const OLDER_REVIEW_VERSIONS: Record<string, string[]> = { selfsubjectreviews: ["v1beta1"] };

/** Answers 304 when the client already holds this body (If-None-Match), else sends it with its ETag. */
function sendCached(request: FastifyRequest, reply: FastifyReply, body: string, contentType: string, etag: string) {
  const quoted = `"${etag}"`;
  reply.header("etag", quoted).header("vary", "Accept");
  const inm = request.headers["if-none-match"];
  if (inm?.split(",").some((t) => t.trim() === quoted || t.trim() === "*")) return reply.code(304).send();
  // A Buffer keeps fastify from rewriting the media type (it would quote the parameters and add a charset).
  return reply.code(200).header("content-type", contentType).send(Buffer.from(body));
}

/**
 * Discovery (legacy and aggregated v2), the review APIs and OpenAPI v3, all under the
 * management API prefix, so that kubectl and client libraries pointed at
 * `https://HOST:PORT/kubernetes/management` find everything where kube-apiserver has it.
 */
export function registerDiscoveryRoutes(
  app: FastifyInstance,
  deps: { registry: Registry; core: Registry; reviews: Registry; authorizer: Authorizer; guarded: Guarded },
): void {
  registerCoreDiscovery(app, deps.core, deps.guarded);
  const { registry, guarded } = deps;
  const groups = [
    { group: GROUP, version: VERSION },
    ...REVIEW_GROUPS.map((g) => ({ group: g.group, version: g.version })),
  ];
  const format = (req: FastifyRequest) => negotiateResponse(req.headers.accept, false);

  const aggregated = JSON.stringify(aggregatedDiscovery(registry));
  const aggregatedEtag = createHash("sha256").update(aggregated).digest("hex");
  app.get(
    `${API_PREFIX}/apis`,
    guarded(async (req, reply) => {
      if (wantsAggregatedDiscovery(req.headers.accept))
        return sendCached(req, reply, aggregated, AGGREGATED_DISCOVERY_V2, aggregatedEtag);
      return send(reply, 200, apiGroupList(groups), format(req));
    }),
  );

  for (const gv of groups) {
    const one = apiGroupList([gv]).groups[0];
    app.get(
      `${API_PREFIX}/apis/${gv.group}`,
      guarded(async (req, reply) => send(reply, 200, { kind: "APIGroup", apiVersion: "v1", ...one }, format(req))),
    );
  }
  app.get(
    `${API_PREFIX}/apis/${GROUP}/${VERSION}`,
    guarded(async (req, reply) => send(reply, 200, apiResourceList(registry, GROUP, VERSION), format(req))),
  );
  for (const gv of REVIEW_GROUPS) {
    app.get(
      `${API_PREFIX}/apis/${gv.group}/${gv.version}`,
      guarded(async (req, reply) => send(reply, 200, extraResourceList(gv), format(req))),
    );
  }
  // The review kinds (src/authz/reviews): create-only, each create authorized first and then
  // through its Store's pipeline; another method is kube's 403, 405 or 404 (create-only-methods.ts).
  for (const rt of deps.reviews.resourceTypes()) {
    const store = deps.reviews.store(rt.plural);
    for (const version of [rt.version, ...(OLDER_REVIEW_VERSIONS[rt.plural] ?? [])]) {
      const url = `${API_PREFIX}/apis/${rt.group}/${version}/${rt.plural}`;
      const apiVersion = `${rt.group}/${version}`;
      registerCreateOnlyMethods(app, url, rt, deps);
      app.post(
        url,
        guarded(async (req, reply, ctx) => {
          // Before the body is read: a caller refused learns nothing from how it would be decoded.
          await authorizeCreateOnly(deps.authorizer, ctx, rt, "create");
          const body = decodeReviewBody(req);
          const options = {
            ...writeOptions(req.query as Query, req.headers["user-agent"], "CreateOptions"),
            duplicateFields: body.duplicates,
          };
          // An older version has the same fields: checked and answered as the served one, then
          // labelled with the version asked for.
          const value =
            body.value?.apiVersion === apiVersion
              ? { ...body.value, apiVersion: `${rt.group}/${rt.version}` }
              : body.value;
          const answer = await store.createVirtual(ctx, undefined, value, options);
          return send(reply, 201, { ...answer, apiVersion }, format(req), ctx.warnings);
        }),
      );
    }
  }
  registerOpenApiRoutes(app, registry, guarded);
}

/** OpenAPI v2 (JSON and gnostic protobuf, for kubectl up to 1.26 and other v2 clients) and v3. */
function registerOpenApiRoutes(app: FastifyInstance, registry: Registry, guarded: Guarded): void {
  const openApiV2 = openApiV2Handler(registry);
  app.get(
    `${API_PREFIX}/openapi/v2`,
    guarded(async (req, reply) => openApiV2(req, reply)),
  );
  const openapi = buildOpenApi(registry);
  app.get(
    `${API_PREFIX}/openapi/v3`,
    guarded(async (_req, reply) => reply.code(200).type("application/json").send(JSON.stringify(openapi.index))),
  );
  app.get(
    `${API_PREFIX}/openapi/v3/*`,
    guarded(async (req, reply) => {
      const key = (req.params as { "*": string })["*"];
      const doc = openapi.documents.get(key);
      if (!doc) throw errors.notFoundPath();
      // A request naming the current hash may be cached for good: the URL changes with the content.
      const hash = (req.query as { hash?: string }).hash;
      reply.header("cache-control", hash === doc.hash ? "public, immutable" : "no-cache, private");
      return sendCached(req, reply, doc.body, "application/json", doc.hash);
    }),
  );
}

/** `/api` and `/api/v1`: the core group's discovery, from its registry. */
function registerCoreDiscovery(app: FastifyInstance, core: Registry, guarded: Guarded): void {
  const aggregated = Buffer.from(JSON.stringify(coreAggregatedDiscovery(core, [namespaceResource])));
  const format = (req: FastifyRequest) => negotiateResponse(req.headers.accept, false);
  app.get(
    `${API_PREFIX}/api`,
    guarded(async (req, reply) => {
      if (wantsAggregatedDiscovery(req.headers.accept))
        return reply.code(200).header("content-type", AGGREGATED_DISCOVERY_V2).send(aggregated);
      return send(reply, 200, apiVersions(), format(req));
    }),
  );
  app.get(
    `${API_PREFIX}/api/v1`,
    guarded(async (req, reply) => send(reply, 200, coreResourceList(core, [namespaceResource]), format(req))),
  );
}
