import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { stringify } from "yaml";
import { failureStatus, type StatusDetails, type StatusReason } from "../api/errors.js";
import { parseLabelSelector } from "../api/selectors/label-selector.js";
import {
  type CertificateAndKey,
  createCertificateAuthority,
  createServingCertificate,
} from "../crypto/certificates.js";

/**
 * A stand-in for a Kubernetes API server, for tests: real HTTPS with its own CA, a
 * bearer token check, and the few calls the platform makes (`/version`, services by
 * label selector, one service, one secret, one StatefulSet, one namespace) answered in the wire shapes
 * kube-apiserver uses, errors as `Status` objects. The product talks to it through an ordinary
 * kubeconfig and `@kubernetes/client-node`, exactly as to a real cluster.
 */

interface StoredObject {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion: string;
    creationTimestamp: string;
    labels?: Record<string, string>;
    generation?: number;
  };
  [key: string]: unknown;
}

export interface FakeVirtualCluster {
  /** UID of its Service, what the platform records as status.serviceUID. */
  serviceUID: string;
  /** The virtual cluster's certificate authority (its `<name>-certs` secret). */
  ca: CertificateAndKey;
}

export class FakeKubeApiServer {
  /** The bearer token the server accepts; change it to make the platform's credentials stale. */
  token = randomBytes(16).toString("hex");
  /** When set, every authenticated request is refused with 403 (the credentials lack RBAC rights). */
  forbidAll = false;
  /** Paths requested, in order (with query). */
  readonly requests: string[] = [];
  /** Each answer waits this long (to see how many requests a client keeps open at once). */
  responseDelayMs = 0;
  /** Requests being answered now, and the most there ever were. */
  inFlight = 0;
  maxInFlight = 0;
  private readonly services = new Map<string, StoredObject>();
  private readonly secrets = new Map<string, StoredObject>();
  private readonly statefulSets = new Map<string, StoredObject>();
  private readonly namespaces = new Map<string, Record<string, unknown>>();
  private revision = 1;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly ca: CertificateAndKey,
  ) {}

  /** Starts on 127.0.0.1 with a free port and a fresh CA. */
  static async start(): Promise<FakeKubeApiServer> {
    const ca = await createCertificateAuthority("fake-kube-apiserver-ca", 1);
    const serving = await createServingCertificate(ca, {
      dnsNames: ["localhost"],
      ipAddresses: ["127.0.0.1"],
      validityDays: 1,
    });
    let self: FakeKubeApiServer | undefined;
    const server = createServer({ key: serving.keyPem, cert: serving.certPem }, (req, res) => {
      const fake = self!;
      fake.inFlight++;
      fake.maxInFlight = Math.max(fake.maxInFlight, fake.inFlight);
      res.on("close", () => fake.inFlight--);
      if (fake.responseDelayMs > 0) setTimeout(() => fake.handle(req, res), fake.responseDelayMs);
      else fake.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    self = new FakeKubeApiServer(server, `https://127.0.0.1:${port}`, ca);
    return self;
  }

  /** A kubeconfig for this server; options make it wrong in the ways tests need. */
  kubeconfig(options: { token?: string; server?: string; caPem?: string } = {}): string {
    return stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "fake",
          cluster: {
            server: options.server ?? this.url,
            "certificate-authority-data": Buffer.from(options.caPem ?? this.ca.certPem).toString("base64"),
          },
        },
      ],
      users: [{ name: "fake", user: { token: options.token ?? this.token } }],
      contexts: [{ name: "fake", context: { cluster: "fake", user: "fake" } }],
      "current-context": "fake",
    });
  }

  addService(namespace: string, name: string, labels: Record<string, string> = { app: "vcluster" }): string {
    const uid = randomUUID();
    this.services.set(`${namespace}/${name}`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: this.meta(namespace, name, uid, labels),
      spec: {
        type: "ClusterIP",
        clusterIP: "10.96.0.10",
        clusterIPs: ["10.96.0.10"],
        ports: [{ name: "https", protocol: "TCP", port: 443, targetPort: 8443 }],
        selector: { app: "vcluster", release: name },
        sessionAffinity: "None",
      },
      status: { loadBalancer: {} },
    });
    return uid;
  }

  /** A namespace (what an import of a space reads); returns its UID. */
  addNamespace(name: string): string {
    const { namespace: _, ...metadata } = this.meta("", name, randomUUID());
    this.namespaces.set(name, { apiVersion: "v1", kind: "Namespace", metadata, spec: { finalizers: ["kubernetes"] } });
    return metadata.uid;
  }

  /** Data values are plain text here; the wire carries them base64 as Kubernetes does. */
  addSecret(namespace: string, name: string, data: Record<string, string>, labels?: Record<string, string>): void {
    const encoded: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) encoded[k] = Buffer.from(v).toString("base64");
    this.secrets.set(`${namespace}/${name}`, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: this.meta(namespace, name, randomUUID(), labels),
      type: "Opaque",
      data: encoded,
    });
  }

  removeSecret(namespace: string, name: string): void {
    this.secrets.delete(`${namespace}/${name}`);
  }

  /**
   * A virtual cluster as the vcluster chart installs it, running: Service `name` labelled
   * app=vcluster, Secret `name-certs` with its CA (labelled `certsLabels`: the platform labels what
   * it deploys), and StatefulSet `name` with its one replica ready.
   */
  async addVirtualCluster(
    namespace: string,
    name: string,
    certsLabels?: Record<string, string>,
  ): Promise<FakeVirtualCluster> {
    const ca = await createCertificateAuthority(`vcluster-ca-${name}`, 1);
    const serviceUID = this.addService(namespace, name);
    this.addSecret(namespace, `${name}-certs`, { "ca.crt": ca.certPem, "ca.key": ca.keyPem }, certsLabels);
    this.statefulSets.set(`${namespace}/${name}`, {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { ...this.meta(namespace, name, randomUUID()), generation: 1 },
      spec: { replicas: 1, serviceName: name, selector: { matchLabels: { app: "vcluster", release: name } } },
      status: { observedGeneration: 1, replicas: 1, readyReplicas: 1, availableReplicas: 1 },
    });
    return { serviceUID, ca };
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private meta(namespace: string, name: string, uid: string, labels?: Record<string, string>) {
    return {
      name,
      namespace,
      uid,
      resourceVersion: String(++this.revision),
      creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      ...(labels ? { labels } : {}),
    };
  }

  private handle(req: IncomingMessage, res: ServerResponse): unknown {
    const url = new URL(req.url ?? "/", "https://fake");
    this.requests.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const fail = (code: number, reason: StatusReason, message: string, details?: StatusDetails) =>
      send(code, failureStatus(code, reason, message, details));

    if (req.headers.authorization !== `Bearer ${this.token}`) return fail(401, "Unauthorized", "Unauthorized");
    if (req.method !== "GET") return fail(405, "MethodNotAllowed", "the server does not allow this method");
    if (url.pathname === "/version") {
      return send(200, {
        major: "1",
        minor: "32",
        gitVersion: "v1.32.4",
        gitCommit: "0000000000000000000000000000000000000000",
        gitTreeState: "clean",
        buildDate: "2025-04-22T00:00:00Z",
        goVersion: "go1.23.8",
        compiler: "gc",
        platform: "linux/amd64",
      });
    }
    const ns = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(url.pathname);
    if (ns) {
      const found = this.namespaces.get(decodeURIComponent(ns[1]!));
      if (!found) return fail(404, "NotFound", `namespaces "${ns[1]}" not found`, { name: ns[1], kind: "namespaces" });
      return send(200, { ...found, status: { phase: "Active" } });
    }
    const m =
      /^\/(?:api\/v1|apis\/(apps)\/v1)\/namespaces\/([^/]+)\/(services|secrets|statefulsets)(?:\/([^/]+))?$/.exec(
        url.pathname,
      );
    if (!m || (m[1] === "apps") !== (m[3] === "statefulsets")) {
      return fail(404, "NotFound", "the server could not find the requested resource", {});
    }
    const [, group = "", namespace, resource, name] = m as unknown as [
      string,
      string | undefined,
      string,
      "services" | "secrets" | "statefulsets",
      string | undefined,
    ];
    if (this.forbidAll) {
      const what = name ? `${resource} "${name}"` : resource;
      return fail(
        403,
        "Forbidden",
        `${what} is forbidden: User "system:serviceaccount:platform:platform" cannot ${name ? "get" : "list"} resource "${resource}" in API group "${group}" in the namespace "${namespace}"`,
        { ...(name ? { name } : {}), kind: resource },
      );
    }
    const table = { services: this.services, secrets: this.secrets, statefulsets: this.statefulSets }[resource];
    if (name !== undefined) {
      const obj = table.get(`${namespace}/${decodeURIComponent(name)}`);
      if (!obj) return fail(404, "NotFound", `${resource} "${name}" not found`, { name, kind: resource });
      return send(200, obj);
    }
    let selector: ReturnType<typeof parseLabelSelector>;
    try {
      selector = parseLabelSelector(url.searchParams.get("labelSelector"));
    } catch (err) {
      return fail(400, "BadRequest", (err as Error).message);
    }
    const items = [...table.values()].filter(
      (o) => o.metadata.namespace === namespace && selector(o.metadata.labels ?? {}),
    );
    return send(200, {
      kind: { services: "ServiceList", secrets: "SecretList", statefulsets: "StatefulSetList" }[resource],
      apiVersion: group ? `${group}/v1` : "v1",
      metadata: { resourceVersion: String(this.revision) },
      items: items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest),
    });
  }
}
