import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { errors } from "../api/errors.js";
import { API_PREFIX, GROUP, VERSION } from "../api/object.js";
import { AccessKeyAuthenticator, type Authenticator, bearerToken } from "../auth/authenticator.js";
import { bootstrapAdmin, writeAdminKubeconfig } from "../auth/bootstrap.js";
import { IdentityIndex } from "../auth/identity-index.js";
import { loadOrCreateServerTls } from "../crypto/certificates.js";
import "../crypto/reflect-metadata.js";
import { loadOrCreateSigningKey, type TokenSigner } from "../crypto/jwt.js";
import { loadOrCreateEncryptionKeys, type SecretBox } from "../crypto/secret-box.js";
import { allResourceTypes } from "../kinds/index.js";
import { CachedStorage } from "../registry/cache/cached-storage.js";
import { Informer } from "../registry/informer.js";
import { Registry } from "../registry/registry.js";
import type { RequestContext } from "../registry/request-context.js";
import { openStorage } from "../storage/factory.js";
import type { Storage } from "../storage/interface.js";
import { type Authorizer, allowAllAuthorizer } from "./authorizer.js";
import { apiGroupList, apiResourceList, SERVER_VERSION } from "./discovery.js";
import { negotiateResponse, type ResponseFormat } from "./negotiation.js";
import { handleResourceRequest, type ResourceHandlerDeps, type SubresourceHandler } from "./resource-handler.js";
import { send, sendError } from "./respond.js";
import { WatchStreams } from "./watch-stream.js";

/** Request bodies above this are refused with 413 before they are read whole. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export interface ServerConfig {
  dataDir: string;
  /** Host to listen on (default 0.0.0.0). */
  host?: string;
  /** Port (default 8443; 0 picks a free one). */
  port?: number;
  /** Storage URL: `sqlite:PATH` (default `<data-dir>/platform.db`) or `etcd://host:port[,…]`. */
  storage?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  encryptionKeyFile?: string;
  bootstrapKey?: string;
  bookmarkIntervalMs?: number;
  /** Longest lifetime of a direct cluster endpoint token. */
  maxTokenTtlSeconds?: number;
  logLevel?: string;
}

export interface RunningServer {
  /** `https://127.0.0.1:PORT` (or the listen host when it is not a wildcard). */
  url: string;
  port: number;
  caPem?: string;
  /** The admin key, when known (first start, or kept in the data dir). */
  adminKey?: string;
  adminKubeconfig?: string;
  registry: Registry;
  storage: Storage;
  app: FastifyInstance;
  close(): Promise<void>;
}

/** Builds every part, binds the socket and returns a handle that tests and the CLI close. */
export async function startServer(config: ServerConfig): Promise<RunningServer> {
  const dataDir = resolve(config.dataDir);
  const tls =
    config.tlsCertFile && config.tlsKeyFile
      ? {
          certPem: readFileSync(config.tlsCertFile, "utf8"),
          keyPem: readFileSync(config.tlsKeyFile, "utf8"),
          caPem: undefined,
        }
      : await loadOrCreateServerTls(dataDir);
  const secretBox: SecretBox = loadOrCreateEncryptionKeys(
    config.encryptionKeyFile ? { keyFile: config.encryptionKeyFile } : { dataDir },
  );
  const signer: TokenSigner = await loadOrCreateSigningKey(dataDir);
  // Reads and watches of every resource are served by the watch cache (src/registry/cache).
  const storage = new CachedStorage(await openStorage(config.storage ?? `sqlite:${resolve(dataDir, "platform.db")}`));

  const registry = new Registry(
    storage,
    allResourceTypes({
      cipher: {
        encrypt: (v) => secretBox.encrypt(Buffer.from(v, "utf8")),
        decrypt: (v) => secretBox.decrypt(v).toString("utf8"),
      },
      tokenIssuer: {
        issue: (claims, ttl) =>
          signer.signToken({ sub: claims.sub, subjectKind: claims.subjectKind, scope: claims.scope }, ttl),
        maxTtlSeconds: config.maxTokenTtlSeconds ?? 86400,
      },
    }),
  );
  const identity = new IdentityIndex(
    new Informer(registry.store("ownedaccesskeys")),
    new Informer(registry.store("users")),
    new Informer(registry.store("teams")),
  );
  const adminKey = await bootstrapAdmin(registry, dataDir, config.bootstrapKey ?? process.env.PLATFORM_BOOTSTRAP_KEY);
  await identity.start();
  const authenticator: Authenticator = new AccessKeyAuthenticator(identity);
  const authorizer: Authorizer = allowAllAuthorizer;
  const subresources = new Map<string, SubresourceHandler>();
  const watchStreams = new WatchStreams();

  const app = Fastify({
    https: { key: tls.keyPem, cert: tls.certPem },
    bodyLimit: MAX_BODY_BYTES,
    logger: { level: config.logLevel ?? "warn" },
    // Kubernetes paths are case-sensitive and never have trailing-slash aliases.
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 1000 },
    return503OnClosing: true,
    forceCloseConnections: "idle",
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: MAX_BODY_BYTES }, (_req, body, done) =>
    done(null, body),
  );
  app.setErrorHandler((err, request, reply) => {
    const code = (err as { code?: string }).code;
    if (code === "FST_ERR_CTP_BODY_TOO_LARGE") return sendError(reply, errors.tooLarge(MAX_BODY_BYTES));
    if (code === "FST_ERR_CTP_INVALID_MEDIA_TYPE")
      return sendError(
        reply,
        errors.unsupportedMediaType(request.headers["content-type"] ?? "", ["application/json", "application/yaml"]),
      );
    if (code === "FST_ERR_CTP_EMPTY_JSON_BODY" || code === "FST_ERR_CTP_INVALID_CONTENT_LENGTH")
      return sendError(reply, errors.badRequest((err as Error).message));
    return sendError(reply, err);
  });
  app.setNotFoundHandler((_request, reply) => sendError(reply, errors.notFoundPath()));

  // ---- unauthenticated endpoints ----
  for (const path of ["/healthz", "/livez", "/readyz"]) {
    app.get(path, async (_req, reply) => reply.type("text/plain").send("ok"));
  }
  for (const path of ["/version", `${API_PREFIX}/version`]) {
    app.get(path, async (_req, reply) => reply.send(SERVER_VERSION));
  }
  app.get("/.well-known/jwks.json", async (_req, reply) => reply.send(signer.jwks()));

  // ---- authenticated API ----
  const authenticate = async (request: FastifyRequest): Promise<RequestContext> => {
    const user = await authenticator.authenticate(bearerToken(request.headers.authorization));
    return { user, warnings: [] };
  };
  const formatOf = (request: FastifyRequest): ResponseFormat => {
    try {
      return negotiateResponse(request.headers.accept, false);
    } catch {
      return { encoding: "json", table: false };
    }
  };
  const guarded =
    (handler: (request: FastifyRequest, reply: FastifyReply, ctx: RequestContext) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const ctx = await authenticate(request);
        return await handler(request, reply, ctx);
      } catch (err) {
        if (reply.sent || reply.raw.headersSent) return reply;
        return sendError(reply, err, formatOf(request));
      }
    };

  app.get(
    `${API_PREFIX}/api`,
    guarded(async (_req, reply) => sendError(reply, errors.notFoundPath())),
  );
  app.get(
    `${API_PREFIX}/apis`,
    guarded(async (req, reply) =>
      send(
        reply,
        200,
        apiGroupList([{ group: GROUP, version: VERSION }]),
        negotiateResponse(req.headers.accept, false),
      ),
    ),
  );
  app.get(
    `${API_PREFIX}/apis/${GROUP}`,
    guarded(async (req, reply) =>
      send(
        reply,
        200,
        apiGroupList([{ group: GROUP, version: VERSION }]).groups[0],
        negotiateResponse(req.headers.accept, false),
      ),
    ),
  );
  app.get(
    `${API_PREFIX}/apis/${GROUP}/${VERSION}`,
    guarded(async (req, reply) =>
      send(reply, 200, apiResourceList(registry, GROUP, VERSION), negotiateResponse(req.headers.accept, false)),
    ),
  );
  const deps: ResourceHandlerDeps = {
    registry,
    authorizer,
    subresources,
    bookmarkIntervalMs: config.bookmarkIntervalMs ?? 30_000,
    watchStreams,
  };
  const groupPrefix = `${API_PREFIX}/apis/${GROUP}/${VERSION}/`;
  app.route({
    method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    url: `${groupPrefix}*`,
    handler: guarded((request, reply, ctx) => {
      const rest = request.url.slice(groupPrefix.length).split("?")[0] ?? "";
      return handleResourceRequest(deps, request, reply, rest, ctx);
    }),
  });

  await app.listen({ host: config.host ?? "0.0.0.0", port: config.port ?? 8443 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : (config.port ?? 8443);
  const host = !config.host || config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
  const url = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const adminKubeconfig = adminKey ? writeAdminKubeconfig(dataDir, url, tls.caPem, adminKey) : undefined;

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    caPem: tls.caPem,
    adminKey,
    adminKubeconfig,
    registry,
    storage,
    app,
    close() {
      closing ??= (async () => {
        watchStreams.closeAll();
        await app.close();
        identity.stop();
        await storage.close();
      })();
      return closing;
    },
  };
}
