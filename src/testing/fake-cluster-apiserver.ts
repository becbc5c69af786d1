import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { createWebSocketStream, type WebSocket, WebSocketServer } from "ws";
import { stringify } from "yaml";
import {
  type CertificateAndKey,
  createCertificateAuthority,
  createServingCertificate,
} from "../crypto/certificates.js";
import { acceptSpdy, isSpdyUpgrade, spdyExec } from "./fake-cluster-spdy.js";
import { SpdyServerSession, type SpdyStream } from "./spdy-server-session.js";

/**
 * A stand-in for a connected cluster's API server that the cluster gateway forwards kubectl to,
 * speaking the wire format of the calls kubectl makes: legacy discovery, pods and configmaps
 * (get, list, watch as chunked JSON event lines, create, delete), `pods/log` with follow, and
 * `pods/exec` over WebSocket (`v5.channel.k8s.io`/`v4.channel.k8s.io`: one channel byte, then
 * the data; channel 3 carries the final Status). It records for every request the identity
 * headers it received, so tests can see what the gateway sent.
 */

export interface SeenRequest {
  method: string;
  path: string;
  authorization?: string;
  impersonateUser?: string;
  impersonateGroups: string[];
  /** CN of the client certificate (virtual cluster stand-ins authenticate by certificate). */
  certUser?: string;
  certGroups: string[];
  /** The request's header lines as they came (name, value, name, value...). */
  rawHeaders: string[];
}

interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; uid: string; resourceVersion: string; creationTimestamp: string };
  [k: string]: unknown;
}

/** kubectl's port-forward over WebSocket: SPDY/3.1 frames tunneled in binary messages. */
const PORT_FORWARD_PROTOCOL = "SPDY/3.1+portforward.k8s.io";
/**
 * ws accepts only RFC 7230 tokens as subprotocols and "/" is none: the stand-in hands ws this
 * stand-in name and writes the real one into the 101 (the wire is what kubectl sees).
 */
const PORT_FORWARD_TOKEN = "spdy-3.1-portforward.k8s.io";

/**
 * How long after the 101 an exec'd command starts writing. A real API server cannot answer
 * sooner: it accepts the WebSocket first, then reaches the kubelet, which has the container
 * runtime start the process. kubectl 1.32 relies on that gap: one goroutine starts reading the
 * connection while another registers the error, stdout and stderr streams, and a message read
 * before its stream is registered is dropped ("Unknown stream id 1, discarding message" on
 * stderr, exit code 0, stdout empty; kubernetes/kubernetes#131189, fixed in client-go by #131203,
 * after 1.32). Output sent with the 101 made `kubectl exec -- echo` print nothing, now and then,
 * on a loaded machine. There is no signal to wait for instead: without `-i` kubectl sends nothing.
 */
const PROCESS_START_MS = 100;

const RESOURCES = {
  pods: { kind: "Pod", verbs: ["create", "delete", "get", "list", "watch"] },
  configmaps: { kind: "ConfigMap", verbs: ["create", "delete", "get", "list", "watch"] },
} as const;
type Resource = keyof typeof RESOURCES;

export class FakeClusterApiServer {
  /** The bearer token the platform must present (its kubeconfig's credentials). */
  token = randomBytes(16).toString("hex");
  readonly seen: SeenRequest[] = [];
  /** Every response waits this long first (a slow cluster). */
  delayMs = 0;
  /** Port-forward sessions opened. */
  portForwards = 0;
  /** The protocol of each upgrade answered over SPDY/3.1 (kubectl's fallback from WebSocket), in order. */
  readonly spdyUpgrades: string[] = [];
  /** Lines a `logs` request writes (one every 20 ms when following). */
  logLines = 5;
  private readonly objects = new Map<string, Obj>();
  private readonly watches = new Set<{ resource: Resource; namespace: string; res: ServerResponse }>();
  private revision = 100;
  private readonly wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) =>
      [PORT_FORWARD_TOKEN, "v5.channel.k8s.io", "v4.channel.k8s.io"].find((p) => protocols.has(p)) ?? false,
  });

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly ca: CertificateAndKey,
    /** When set, callers authenticate with client certificates signed by this CA instead of the token. */
    readonly clientCa?: CertificateAndKey,
  ) {}

  /** A new server on the port of a stopped one, with its CA, token and objects (a cluster coming back). */
  static async restartOn(old: FakeClusterApiServer, port: number): Promise<FakeClusterApiServer> {
    const next = await FakeClusterApiServer.start({ ca: old.ca, clientCa: old.clientCa, port });
    next.token = old.token;
    for (const [k, v] of old.objects) next.objects.set(k, v);
    next.revision = old.revision;
    return next;
  }

  /**
   * `address` (default 127.0.0.1) and `port` (default: a free one) are where it listens;
   * `dnsNames` are host names its serving certificate names besides localhost (an ingress host).
   */
  static async start(
    options: {
      ca?: CertificateAndKey;
      clientCa?: CertificateAndKey;
      port?: number;
      address?: string;
      dnsNames?: string[];
    } = {},
  ) {
    const ca = options.ca ?? (await createCertificateAuthority("fake-cluster-ca", 1));
    const address = options.address ?? "127.0.0.1";
    const serving = await createServingCertificate(ca, {
      dnsNames: ["localhost", ...(options.dnsNames ?? [])],
      ipAddresses: [address],
      validityDays: 1,
    });
    let self: FakeClusterApiServer | undefined;
    const server = createServer(
      {
        key: serving.keyPem,
        cert: serving.certPem,
        ...(options.clientCa ? { ca: options.clientCa.certPem, requestCert: true, rejectUnauthorized: false } : {}),
      },
      (req, res) => self!.delayed(() => self!.handle(req, res)),
    );
    server.on("upgrade", (req, socket, head) => self!.upgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, address, resolve);
    });
    const { port } = server.address() as AddressInfo;
    self = new FakeClusterApiServer(server, `https://${address}:${port}`, ca, options.clientCa);
    self.wss.on("headers", (headers: string[]) => {
      const i = headers.indexOf(`Sec-WebSocket-Protocol: ${PORT_FORWARD_TOKEN}`);
      if (i >= 0) headers[i] = `Sec-WebSocket-Protocol: ${PORT_FORWARD_PROTOCOL}`;
    });
    return self;
  }

  kubeconfig(): string {
    return stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "c",
          cluster: { server: this.url, "certificate-authority-data": Buffer.from(this.ca.certPem).toString("base64") },
        },
      ],
      users: [{ name: "c", user: { token: this.token } }],
      contexts: [{ name: "c", context: { cluster: "c", user: "c" } }],
      "current-context": "c",
    });
  }

  /** Adds a pod (or configmap) as if created on the cluster; open watches see it. */
  add(resource: Resource, namespace: string, name: string, extra: Record<string, unknown> = {}): Obj {
    const obj: Obj = {
      apiVersion: "v1",
      kind: RESOURCES[resource].kind,
      metadata: {
        name,
        namespace,
        uid: randomUUID(),
        resourceVersion: String(++this.revision),
        creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
      },
      ...(resource === "pods"
        ? { spec: { containers: [{ name: "main", image: "busybox" }] }, status: { phase: "Running" } }
        : {}),
      ...extra,
    };
    this.objects.set(`${resource}/${namespace}/${name}`, obj);
    this.notify(resource, "ADDED", obj);
    return obj;
  }

  /** Cuts every open watch mid-stream, as an API server restart does. */
  dropWatches(): void {
    for (const w of this.watches) w.res.socket?.destroy();
    this.watches.clear();
  }

  get openWatches(): number {
    return this.watches.size;
  }

  stop(): Promise<void> {
    this.dropWatches();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private delayed(fn: () => void): void {
    if (this.delayMs > 0) setTimeout(fn, this.delayMs);
    else fn();
  }

  private notify(resource: Resource, type: string, obj: Obj): void {
    for (const w of this.watches) {
      if (w.resource === resource && (!w.namespace || w.namespace === obj.metadata.namespace)) {
        w.res.write(`${JSON.stringify({ type, object: obj })}\n`);
      }
    }
  }

  /** Who the request says it is; undefined when it is not authenticated. */
  private identify(req: IncomingMessage): SeenRequest | undefined {
    const url = new URL(req.url ?? "/", "https://x");
    const groups = req.headersDistinct["impersonate-group"] ?? [];
    const seen: SeenRequest = {
      method: req.method ?? "",
      path: url.pathname + url.search,
      authorization: req.headers.authorization,
      impersonateUser: req.headersDistinct["impersonate-user"]?.[0],
      impersonateGroups: groups,
      certGroups: [],
      rawHeaders: req.rawHeaders,
    };
    this.seen.push(seen);
    if (this.clientCa) {
      const cert = (req.socket as import("node:tls").TLSSocket).getPeerCertificate?.();
      if (!cert || !(req.socket as import("node:tls").TLSSocket).authorized) return undefined;
      seen.certUser = String(cert.subject?.CN ?? "");
      const o = cert.subject?.O;
      seen.certGroups = o === undefined ? [] : Array.isArray(o) ? o : [o];
      return seen;
    }
    return req.headers.authorization === `Bearer ${this.token}` ? seen : undefined;
  }

  private handle(req: IncomingMessage, res: ServerResponse): unknown {
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const fail = (code: number, reason: string, message: string) =>
      send(code, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code });
    if (!this.identify(req)) return fail(401, "Unauthorized", "Unauthorized");
    const url = new URL(req.url ?? "/", "https://x");
    const p = url.pathname;
    if (p === "/version") return send(200, { major: "1", minor: "32", gitVersion: "v1.32.4", platform: "linux/amd64" });
    if (p === "/api") return send(200, { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] });
    if (p === "/apis") return send(200, { kind: "APIGroupList", apiVersion: "v1", groups: [] });
    if (p === "/api/v1") return send(200, this.resourceList());
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|configmaps)(?:\/([^/]+))?(?:\/(log))?$/.exec(p);
    if (!m) return fail(404, "NotFound", "the server could not find the requested resource");
    const [, namespace = "", resource, name, sub] = m as unknown as [string, string, Resource, string?, string?];
    if (sub === "log") return this.logs(url, res);
    if (req.method === "GET" && !name && url.searchParams.get("watch") === "true")
      return this.watch(resource, namespace, res);
    if (req.method === "GET" && !name) return send(200, this.list(resource, namespace));
    const key = `${resource}/${namespace}/${name ?? ""}`;
    if (req.method === "GET") {
      const obj = this.objects.get(key);
      return obj ? send(200, obj) : fail(404, "NotFound", `${resource} "${name}" not found`);
    }
    if (req.method === "DELETE" && name) {
      const obj = this.objects.get(key);
      if (!obj) return fail(404, "NotFound", `${resource} "${name}" not found`);
      this.objects.delete(key);
      this.notify(resource, "DELETED", obj);
      return send(200, obj);
    }
    if (req.method === "POST" && !name) {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        let body: { metadata?: { name?: string } } & Record<string, unknown>;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        } catch {
          return fail(400, "BadRequest", "invalid JSON");
        }
        const n = body.metadata?.name ?? "";
        if (this.objects.has(`${resource}/${namespace}/${n}`))
          return fail(409, "AlreadyExists", `${resource} "${n}" already exists`);
        const { apiVersion: _a, kind: _k, metadata: _m, ...rest } = body;
        send(201, this.add(resource, namespace, n, rest));
      });
      return;
    }
    fail(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
  }

  private resourceList() {
    const entry = (name: string, kind: string, verbs: readonly string[]) => ({
      name,
      singularName: name.endsWith("/log") || name.endsWith("/exec") ? "" : kind.toLowerCase(),
      namespaced: true,
      kind,
      verbs,
    });
    return {
      kind: "APIResourceList",
      groupVersion: "v1",
      resources: [
        entry("pods", "Pod", RESOURCES.pods.verbs),
        entry("pods/log", "Pod", ["get"]),
        entry("pods/exec", "PodExecOptions", ["create", "get"]),
        entry("configmaps", "ConfigMap", RESOURCES.configmaps.verbs),
      ],
    };
  }

  private list(resource: Resource, namespace: string) {
    const items = [...this.objects.entries()]
      .filter(([k, o]) => k.startsWith(`${resource}/`) && o.metadata.namespace === namespace)
      .map(([, o]) => o);
    return {
      kind: `${RESOURCES[resource].kind}List`,
      apiVersion: "v1",
      metadata: { resourceVersion: String(this.revision) },
      items,
    };
  }

  private watch(resource: Resource, namespace: string, res: ServerResponse): void {
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    res.flushHeaders();
    const w = { resource, namespace, res };
    this.watches.add(w);
    res.on("close", () => this.watches.delete(w));
  }

  private logs(url: URL, res: ServerResponse): void {
    res.writeHead(200, { "content-type": "text/plain", "transfer-encoding": "chunked" });
    const follow = url.searchParams.get("follow") === "true";
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      if (i >= this.logLines) return void res.end();
      res.write(`line ${++i}\n`);
      if (follow) setTimeout(next, 20);
      else next();
    };
    next();
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const seen = this.identify(req);
    const url = new URL(req.url ?? "/", "https://x");
    const kind = /\/pods\/[^/]+\/(exec|portforward)$/.exec(url.pathname)?.[1] as "exec" | "portforward" | undefined;
    if (seen && kind && isSpdyUpgrade(req)) {
      if (kind === "portforward") this.portForwards++;
      const onStream = kind === "exec" ? spdyExec(url) : portForwardStreams();
      const protocol = acceptSpdy(req, socket, head, kind, onStream);
      if (protocol) this.spdyUpgrades.push(protocol);
      return;
    }
    if (seen && /\/pods\/[^/]+\/portforward$/.test(url.pathname)) {
      if (req.headers["sec-websocket-protocol"]?.includes(PORT_FORWARD_PROTOCOL)) {
        req.headers["sec-websocket-protocol"] = PORT_FORWARD_TOKEN;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.portForward(ws));
      return;
    }
    if (!seen || !/\/pods\/[^/]+\/exec$/.test(url.pathname)) {
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.exec(ws, url.searchParams.getAll("command"), seen));
  }

  /** Port-forward over WebSocket: SPDY frames tunneled in binary messages (portForwardStreams()). */
  private portForward(ws: WebSocket): void {
    this.portForwards++;
    new SpdyServerSession(createWebSocketStream(ws), portForwardStreams());
  }

  /**
   * `echo ARGS` prints them; `whoami` prints the user the request came as; `cat` echoes stdin
   * until it closes. A command that writes without reading starts PROCESS_START_MS after the 101.
   */
  private exec(ws: WebSocket, command: string[], seen: SeenRequest): void {
    const out = (channel: number, text: string) => ws.send(Buffer.concat([Buffer.from([channel]), Buffer.from(text)]));
    const finish = () => {
      out(3, JSON.stringify({ metadata: {}, status: "Success" }));
      ws.close(1000);
    };
    if (command[0] === "cat") {
      // Its output answers kubectl's stdin, which kubectl sends only once its streams exist.
      ws.on("message", (data: Buffer) => {
        if (data[0] === 0) out(1, data.subarray(1).toString());
        // v5: channel 255 with the channel number closes that stream; stdin closed ends `cat`.
        if (data[0] === 255 && data[1] === 0) finish();
      });
      return;
    }
    const started = setTimeout(() => {
      if (command[0] === "echo") {
        out(1, `${command.slice(1).join(" ")}\n`);
        return finish();
      }
      if (command[0] === "whoami") {
        out(1, `${seen.impersonateUser ?? seen.certUser ?? ""}\n`);
        return finish();
      }
      out(2, `${command[0] ?? ""}: not found\n`);
      out(3, JSON.stringify(NOT_FOUND_STATUS));
      ws.close(1000);
    }, PROCESS_START_MS);
    ws.on("close", () => clearTimeout(started));
  }
}

/** The v4/v5 error-channel Status of a command that exited 127. */
const NOT_FOUND_STATUS = {
  metadata: {},
  status: "Failure",
  reason: "NonZeroExitCode",
  details: { causes: [{ reason: "ExitCode", message: "127" }] },
  message: "command terminated with non-zero exit code",
};

/**
 * Port-forward's streams, over a WebSocket tunnel or a SPDY upgrade alike: every forwarded port
 * is an echo server. Per connection kubectl opens an error stream and a data stream (headers
 * streamType, port, requestID); what arrives on the data stream goes back on it, and when
 * kubectl ends it both streams are ended.
 */
function portForwardStreams(): (stream: SpdyStream) => void {
  const errorStreams = new Map<string, SpdyStream>();
  return (stream) => {
    const requestId = stream.headers.requestid ?? "";
    if (stream.headers.streamtype === "error") {
      errorStreams.set(requestId, stream);
      return;
    }
    stream.on("data", (data: Buffer) => stream.write(data));
    stream.on("end", () => {
      stream.end();
      errorStreams.get(requestId)?.end();
    });
  };
}
