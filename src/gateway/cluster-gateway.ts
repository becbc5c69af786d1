import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { ApiError, errors } from "../api/errors.js";
import { GROUP, type KubeObject, specOf } from "../api/object.js";
import type { AuditLog } from "../audit/audit-log.js";
import type { PlatformAuthorizer } from "../authz/authorizer.js";
import type { RequestAttributes } from "../authz/contract.js";
import { isRestricting, type Scope } from "../authz/scope.js";
import { ClusterConnectionError, type ConnectionReason, clusterCannotBeUsed } from "../clusters/cluster-connection.js";
import type { EndpointPolicy } from "../clusters/endpoint-policy.js";
import { type SpaceInstanceSpec, spaceNamespaceOf } from "../kinds/space-instance/space-instance.js";
import { impersonationOf } from "../registry/impersonation-identity.js";
import type { Registry } from "../registry/registry.js";
import type { RequestContext, UserInfo } from "../registry/request-context.js";
import type { SharedInformers } from "../registry/shared-informers.js";
import { type InternalErrorLog, stderrLog } from "../server/request-guard.js";
import { peerAddress } from "../server/trusted-proxies.js";
import { EndpointNotAllowedError } from "../support/guarded-lookup.js";
import type { VirtualClusterCaStore } from "../virtualclusters/ca-store.js";
import { virtualClusterCannotBeUsed } from "../virtualclusters/reach.js";
import { ClusterUpstreams } from "./cluster-upstreams.js";
import type { ForwardTarget } from "./forward.js";
import type { ForwardedPath } from "./forwarded-path.js";
import { auditForwarded } from "./gateway-audit.js";
import { CallerRefused, GatewayHandler, type Resolved } from "./gateway-handler.js";
import { type GatewayPath, parseGatewayPath } from "./gateway-path.js";
import { type GatewayTarget, gatewayScopeAllows } from "./gateway-scope.js";
import { kubeRequestAttributes } from "./kube-request.js";
import { outsideSpace } from "./space-fence.js";
import type { Upstream } from "./upstream.js";
import { VirtualClusterActivity } from "./vcluster-activity.js";
import { VirtualClusterUpstreams } from "./vcluster-upstreams.js";
import { VirtualClusterWaker } from "./vcluster-wake.js";

const CLUSTER_GATEWAY_PREFIX = "/kubernetes/cluster/";
const PROJECT_GATEWAY_PREFIX = "/kubernetes/project/";
const CLUSTERS = { group: GROUP, resource: "clusters" };
const VCIS = { group: GROUP, resource: "virtualclusterinstances" };
const SPACES = { group: GROUP, resource: "spaceinstances" };

export interface ClusterGatewayDeps {
  registry: Registry;
  /** The replica's informers: the gateway keeps Clusters and SharedSecrets from them. */
  informers: SharedInformers;
  authenticate(request: { ip: string; headers: IncomingMessage["headers"] }): Promise<RequestContext>;
  /**
   * authenticate() without waiting, when it can answer from memory (a key authenticated before
   * and unchanged since); undefined otherwise, and authenticate() decides (and refuses).
   */
  authenticateNow?(request: { ip: string; headers: IncomingMessage["headers"] }): RequestContext | undefined;
  authorizer: PlatformAuthorizer;
  cas: VirtualClusterCaStore;
  audit?: AuditLog;
  /** The client's address (`--trusted-proxies`, server/trusted-proxies.ts); default the socket's peer. */
  clientAddress?: (req: IncomingMessage) => string;
  /** Where clusters' and virtual clusters' endpoints may lead (`--allow-local-endpoints`). */
  endpoints: EndpointPolicy;
  /** Where a request's unexpected failure is logged (answered as a 500); default stderr. */
  logger?: InternalErrorLog;
  /** Sleep mode (docs/virtual-clusters.md); defaults in DEFAULT_SLEEP_MODE. */
  sleepMode?: Partial<GatewaySleepMode>;
}

/** How the gateway takes part in sleep mode (docs/gateway.md, "Sleeping virtual clusters"). */
export interface GatewaySleepMode {
  /** How often the activity noted in memory is written to the instances' status.lastActivity. */
  activityFlushMs: number;
  /** How long a request to a sleeping virtual cluster waits for it to wake before a 503. */
  wakeLimitMs: number;
}

export const DEFAULT_SLEEP_MODE: GatewaySleepMode = {
  // Sleep mode counts in seconds of idle time, and its deadlines are usually minutes or hours:
  // one write per instance in use per flush is all it needs.
  activityFlushMs: 30_000,
  // Under the minute that kubectl and most HTTP clients wait for an answer by default.
  wakeLimitMs: 45_000,
};

/**
 * The cluster gateway inside the server: `/kubernetes/cluster/{cluster}/...` goes to that
 * connected cluster, `/kubernetes/project/{project}/virtualcluster/{name}/...` to that virtual
 * cluster, `/kubernetes/project/{project}/space/{name}/...` to the space's cluster within its
 * namespace (space-fence.ts), after the caller is authenticated like on the management API, holds
 * `use` on the Cluster, VirtualClusterInstance or SpaceInstance, and the key's scope covers the request. It answers before
 * fastify routes anything, so bodies are never parsed or buffered.
 */
export class ClusterGateway {
  private readonly clusters: ClusterUpstreams;
  private readonly vclusters: VirtualClusterUpstreams;
  /** Each instance's last request, written in batches (sleep mode). */
  readonly activity: VirtualClusterActivity;
  private readonly waker: VirtualClusterWaker;
  private readonly handler: GatewayHandler;
  /** Each caller's identity without its scope: the gateway applies the scope itself (gateway-scope.ts). */
  private readonly unscoped = new WeakMap<UserInfo, UserInfo>();
  /** Each request's target, read once by resolve(), for the audit line of a refusal. */
  private readonly labels = new WeakMap<IncomingMessage, string>();
  private fromMemory = 0;

  constructor(private readonly deps: ClusterGatewayDeps) {
    this.clusters = new ClusterUpstreams(deps.registry, deps.informers, deps.endpoints);
    this.vclusters = new VirtualClusterUpstreams(
      deps.registry,
      deps.cas,
      (n) => this.clusters.cluster(n),
      deps.endpoints,
    );
    const sleepMode = { ...DEFAULT_SLEEP_MODE, ...deps.sleepMode };
    this.activity = new VirtualClusterActivity(deps.registry, sleepMode.activityFlushMs, deps.logger ?? stderrLog);
    this.waker = new VirtualClusterWaker(deps.registry, deps.informers, sleepMode.wakeLimitMs);
    this.handler = new GatewayHandler(
      (req) => this.resolve(req),
      (r) => auditForwarded(deps.audit, r),
      (req) => this.labels.get(req) ?? "",
      deps.clientAddress,
      deps.logger,
    );
  }

  start(): Promise<void> {
    this.activity.start();
    return this.clusters.start();
  }

  /** Ends the forwarded watches and sessions (a stopping server lets plain requests finish first). */
  endStreams(): void {
    this.handler.closeStreams();
  }

  /** Ends every exchange and writes the activity noted since the last flush. */
  async stop(): Promise<void> {
    this.handler.closeAll();
    this.clusters.stop();
    this.vclusters.close();
    await this.activity.stop();
  }

  /** Requests resolved from memory (resolveNow) since the start: whether the fast path applies. */
  get answeredFromMemory(): number {
    return this.fromMemory;
  }

  /** Forwarded exchanges open now (watches, exec sessions): what a leak would show in. */
  get openExchanges(): number {
    return this.handler.openCount;
  }

  /** Serves the request when it is a gateway path; false lets the server route it. */
  handleRequest(req: IncomingMessage, res: ServerResponse): boolean {
    if (!isGatewayPath(req.url)) return false;
    this.handler.serve(req, res);
    return true;
  }

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    if (!isGatewayPath(req.url)) return false;
    this.handler.serveUpgrade(req, socket, head);
    return true;
  }

  private clientAddress(req: IncomingMessage): string {
    return (this.deps.clientAddress ?? peerAddress)(req);
  }

  /** Reads the path once (a path that does not parse is refused before anything else), then decides. */
  private resolve(req: IncomingMessage): Resolved | Promise<Resolved> {
    const parsed = parseGatewayPath(req.url ?? "");
    this.labels.set(req, parsed.label);
    return this.resolveNow(req, parsed) ?? this.resolveSlowly(req, parsed);
  }

  /**
   * The common case, answered without a promise: a key authenticated before (the identity
   * cache), a connected cluster whose upstream is built, a request its scope and `use` allow
   * (the authorizer decides from memory). Anything else (a refusal, the first request to a
   * cluster, a virtual cluster, impersonation) is left to resolveSlowly(),
   * which decides the same way, waits where it must, and says why it refuses.
   */
  private resolveNow(req: IncomingMessage, parsed: GatewayPath): Resolved | undefined {
    const { target, forwarded, label } = parsed;
    if (target.kind !== "cluster") return undefined;
    const ctx = this.deps.authenticateNow?.({ ip: this.clientAddress(req), headers: req.headers });
    const user = ctx?.user;
    if (!user || user.credential?.type === "DirectClusterEndpointToken") return undefined;
    const name = target.cluster;
    const cluster = this.clusters.cluster(name);
    const upstream = cluster && this.clusters.builtUpstream(name);
    if (!upstream) return undefined;
    const scope = user.credential?.scope as Scope | undefined;
    if (
      isRestricting(scope) &&
      !gatewayScopeAllows(scope, target, kubeRequestAttributes(req.method ?? "GET", forwarded))
    ) {
      return undefined;
    }
    const attrs = useAttributes(CLUSTERS, "", name, cluster);
    if (!this.deps.authorizer.decide(this.withoutScope(user), attrs).allowed) return undefined;
    this.fromMemory++;
    return { forward: this.clusterTarget(name, upstream, forwarded, user), user, label };
  }

  private async resolveSlowly(req: IncomingMessage, parsed: GatewayPath): Promise<Resolved> {
    const ctx = await this.deps.authenticate({ ip: this.clientAddress(req), headers: req.headers });
    const user = ctx.user;
    // Direct cluster endpoint tokens are for the agent beside a cluster, never for this gateway.
    if (user.credential?.type === "DirectClusterEndpointToken") throw errors.unauthorized();
    try {
      const method = req.method ?? "GET";
      if (parsed.target.kind === "cluster") return await this.resolveCluster(user, parsed.target, parsed, method);
      if (parsed.target.kind === "space") return await this.resolveSpace(user, parsed.target, parsed, method);
      return await this.resolveVirtualCluster(user, parsed.target, parsed, method);
    } catch (err) {
      throw new CallerRefused(err, user);
    }
  }

  private async resolveCluster(
    user: UserInfo,
    target: GatewayTarget & { kind: "cluster" },
    { forwarded, label }: GatewayPath,
    method: string,
  ): Promise<Resolved> {
    const name = target.cluster;
    const cluster = this.clusters.cluster(name);
    await this.authorizeUse(user, target, method, forwarded, CLUSTERS, "", name, cluster);
    if (!cluster) throw errors.notFound(CLUSTERS, name);
    const upstream = await this.clusterUpstream(name, cluster);
    return { forward: this.clusterTarget(name, upstream, forwarded, user), user, label };
  }

  /**
   * A cluster's config that cannot be used (its secret, its kubeconfig, the address policy) is a
   * 503 naming the cluster and the reason only: the details are the Cluster's (clusterCannotBeUsed).
   */
  private async clusterUpstream(name: string, cluster: KubeObject) {
    try {
      return await this.clusters.upstream(cluster);
    } catch (err) {
      if (err instanceof ClusterConnectionError) throw errors.unavailable(clusterCannotBeUsed(name, err.reason));
      throw err;
    }
  }

  /** Where a request to connected cluster `name` (directly, or a space's) is forwarded, as the caller. */
  private clusterTarget(name: string, upstream: Upstream, forwarded: ForwardedPath, user: UserInfo): ForwardTarget {
    return {
      upstream,
      path: forwarded.pathAndQuery,
      impersonate: impersonationOf(user),
      cannotBeUsed: (reason: ConnectionReason) => clusterCannotBeUsed(name, reason),
    };
  }

  /**
   * A space: `use` on its SpaceInstance (not on the cluster), then only what stays inside its
   * namespace, forwarded to its cluster as the caller (impersonated, as on the cluster path): the
   * cluster's RBAC, which the space's owner and access rules are bound into, decides the rest.
   */
  private async resolveSpace(
    user: UserInfo,
    target: GatewayTarget & { kind: "space" },
    { forwarded, label }: GatewayPath,
    method: string,
  ): Promise<Resolved> {
    const { namespace, name } = target;
    const instance = await this.deps.registry.store("spaceinstances").read(namespace, name);
    await this.authorizeUse(user, target, method, forwarded, SPACES, namespace, name, instance);
    if (!instance) throw errors.notFound(SPACES, name);
    const spaceNamespace = spaceNamespaceOf(instance);
    const outside = outsideSpace(kubeRequestAttributes(method, forwarded), spaceNamespace);
    if (outside) {
      throw errors.forbidden(
        SPACES,
        name,
        `the space's gateway path reaches only its namespace "${spaceNamespace}": ${outside}`,
      );
    }
    const clusterName = specOf<SpaceInstanceSpec>(instance).clusterRef?.cluster ?? "";
    const cluster = this.clusters.cluster(clusterName);
    if (!cluster) throw errors.unavailable(`cluster "${clusterName}" of the space does not exist`);
    const upstream = await this.clusterUpstream(clusterName, cluster);
    return { forward: this.clusterTarget(clusterName, upstream, forwarded, user), user, label };
  }

  private async resolveVirtualCluster(
    user: UserInfo,
    target: GatewayTarget & { kind: "virtualcluster" },
    { forwarded, label }: GatewayPath,
    method: string,
  ): Promise<Resolved> {
    const { namespace, name } = target;
    const instance = await this.deps.registry.store("virtualclusterinstances").read(namespace, name);
    await this.authorizeUse(user, target, method, forwarded, VCIS, namespace, name, instance);
    if (!instance) throw errors.notFound(VCIS, name);
    await this.waker.awake(instance).catch((err) => {
      // A wake-up a quota refuses leaves the instance asleep, and the request is no activity.
      if (!(err instanceof ApiError && err.code === 403)) this.activity.touch(namespace, name);
      throw err;
    });
    this.activity.touch(namespace, name);
    const who = impersonationOf(user);
    const cannotBeUsed = (reason: ConnectionReason) => virtualClusterCannotBeUsed(namespace, name, reason);
    const upstream = await this.vclusters.upstream(instance, who.user, who.groups).catch((err) => {
      if (!(err instanceof EndpointNotAllowedError)) throw err;
      throw errors.unavailable(cannotBeUsed("EndpointNotAllowed"));
    });
    return { forward: { upstream, path: forwarded.pathAndQuery, cannotBeUsed }, user, label };
  }

  /**
   * Scope first (it is about the forwarded request), then `use` on the object. Without the object
   * (it does not exist) only those who may use every such object learn that: others get 403.
   */
  private async authorizeUse(
    user: UserInfo,
    target: GatewayTarget,
    method: string,
    forwarded: ForwardedPath,
    gr: { group: string; resource: string },
    namespace: string,
    name: string,
    object: KubeObject | undefined,
  ): Promise<void> {
    const scope = user.credential?.scope as Scope | undefined;
    const refuse = (why: string) =>
      errors.forbidden(
        gr,
        name,
        `User "${user.name}" cannot use resource "${gr.resource}" in API group "${GROUP}"${namespace ? ` in the namespace "${namespace}"` : ""}${why}`,
      );
    // Most keys restrict nothing: the forwarded request is then not parsed at all.
    if (isRestricting(scope) && !gatewayScopeAllows(scope, target, kubeRequestAttributes(method, forwarded))) {
      throw refuse(": the access key's scope does not allow this request");
    }
    const attrs = useAttributes(gr, namespace, name, object);
    const decision = await this.deps.authorizer.authorize(this.withoutScope(user), attrs);
    if (!decision.allowed) throw refuse("");
  }

  private withoutScope(user: UserInfo): UserInfo {
    if (!user.credential?.scope) return user;
    let u = this.unscoped.get(user);
    if (!u) {
      u = { ...user, credential: { ...user.credential, scope: undefined } };
      this.unscoped.set(user, u);
    }
    return u;
  }
}

/** The authorizer's question: may the caller `use` this Cluster or VirtualClusterInstance? */
function useAttributes(
  gr: { group: string; resource: string },
  namespace: string,
  name: string,
  object: KubeObject | undefined,
): RequestAttributes {
  return {
    verb: "use",
    apiGroup: GROUP,
    resource: gr.resource,
    subresource: "",
    namespace,
    name,
    resourceRequest: true,
    object,
  };
}

function isGatewayPath(url: string | undefined): boolean {
  return !!url && (url.startsWith(CLUSTER_GATEWAY_PREFIX) || url.startsWith(PROJECT_GATEWAY_PREFIX));
}
