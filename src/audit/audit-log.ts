/**
 * The audit log: `audit.k8s.io/v1` `Event` JSON lines, as kube-apiserver writes them, so that
 * Kubernetes audit tooling reads it. Stages RequestReceived (once the caller is known),
 * ResponseStarted (watches, when the stream starts) and ResponseComplete; the level of each
 * request comes from the audit policy (audit-policy.ts, Metadata for everything without one).
 *
 * Request and response bodies appear only at the Request and RequestResponse levels, and never
 * for the kinds that carry secret values (shared secrets, access keys, tokens) or for any
 * subresource (accesskeys, kubeconfigs): whatever the policy says, those events stay at Metadata.
 */
import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { API_PREFIX, GROUP, VERSION } from "../api/object.js";
import { describedSegments } from "../api/path-segments.js";
import { queryAsksWatch, requestVerb } from "../api/request-verb.js";
import { auditEventTotal } from "../metrics/metrics.js";
import type { UserInfo } from "../registry/request-context.js";
import {
  type AuditLevel,
  type AuditPolicy,
  type AuditStage,
  loadAuditPolicy,
  METADATA_POLICY,
  matchRule,
} from "./audit-policy.js";
import { failedAuthenticationMessage } from "./failed-authentication.js";
import { RotatingFile } from "./rotating-file.js";
import { auditSourceIPs } from "./source-ips.js";

/** Kubernetes verb and object coordinates of a request. */
export interface RequestDescription {
  verb: string;
  /** Whether the path is under a group's version (`{prefix}/apis/<group>/<version>/...`). */
  resourceRequest: boolean;
  /** The resource; for any other path, the whole (decoded) path. */
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

/** `{prefix}/apis/<group>/<version>/`: the segments before a group's resources. */
const GROUP_SEGMENTS = [...API_PREFIX.split("/"), "apis"];

/**
 * Kubernetes verb and resource coordinates of a request, from its method and path alone, each
 * segment decoded as the router decodes it (path-segments.ts): `shared%73ecrets` is the
 * resource served, `sharedsecrets`, for the policy and the secret-body guard alike.
 */
export function describeRequest(method: string, url: string): RequestDescription {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? "" : url.slice(q + 1);
  const segments = describedSegments(path);
  if (!isGroupPath(segments))
    return { verb: method.toLowerCase(), resourceRequest: false, resource: segments.join("/") };
  let parts = segments.slice(GROUP_SEGMENTS.length + 2).filter(Boolean);
  let namespace: string | undefined;
  if (parts[0] === "namespaces" && parts.length >= 3) {
    namespace = parts[1];
    parts = parts.slice(2);
  }
  const [resource = "", name, subresource] = parts;
  const watch = queryAsksWatch(query);
  return { verb: requestVerb(method, !!name, watch), resourceRequest: true, resource, subresource, namespace, name };
}

function isGroupPath(segments: readonly string[]): boolean {
  // The prefix, a group and a version, then at least the slash after the version.
  if (segments.length < GROUP_SEGMENTS.length + 3) return false;
  for (let i = 0; i < GROUP_SEGMENTS.length; i++) if (segments[i] !== GROUP_SEGMENTS[i]) return false;
  return segments[GROUP_SEGMENTS.length] !== "" && segments[GROUP_SEGMENTS.length + 1] !== "";
}

/** Kinds whose bodies carry secret values: never logged, whatever the policy. */
const SECRET_BEARING_RESOURCES = new Set(["sharedsecrets", "ownedaccesskeys", "directclusterendpointtokens"]);

export interface AuditOptions {
  /** `--audit-policy-file`: kube's Policy (YAML or JSON). */
  auditPolicyFile?: string;
  /** `--audit-log-maxsize`: megabytes before the file is rotated (0 or unset: never). */
  auditLogMaxSizeMb?: number;
  /** `--audit-log-maxbackup`: rotated files kept (default 10 when rotating). */
  auditLogMaxBackup?: number;
}

/** The fields of a request the audit log reads (fastify's request has them all). */
interface AuditedRequest {
  method?: string;
  url?: string;
  id?: string;
  ip?: string;
  /** The connection (fastify's request.socket): its peer is the last of `sourceIPs`. */
  socket?: { remoteAddress?: string };
  headers?: IncomingHttpHeaders;
  body?: unknown;
}

interface Pending {
  user: UserInfo;
  level: AuditLevel;
  omit: readonly AuditStage[];
  received: string;
  responseObject?: unknown;
}

interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
}

/** JSON lines to a file (appended, mode 0600, rotated by size) or to stdout (`-`). */
export class AuditLog {
  private readonly file?: RotatingFile;
  private readonly policy: AuditPolicy;
  private readonly pending = new WeakMap<object, Pending>();

  constructor(target: string, options: AuditOptions = {}) {
    this.policy = options.auditPolicyFile ? loadAuditPolicy(options.auditPolicyFile) : METADATA_POLICY;
    if (target !== "-") {
      const maxBytes = Math.max(0, options.auditLogMaxSizeMb ?? 0) * 1024 * 1024;
      this.file = new RotatingFile(target, { maxBytes, maxBackups: options.auditLogMaxBackup ?? 10 });
    }
  }

  /** Remembers who made a request and writes its RequestReceived event. */
  noteCaller(request: object, user: UserInfo): void {
    const r = request as AuditedRequest;
    const { level, omit } = this.levelOf(r, user);
    const pending: Pending = { user, level, omit, received: new Date().toISOString() };
    this.pending.set(request, pending);
    this.emit(r, pending, "RequestReceived");
  }

  /** Whether the response body should be kept for the ResponseComplete event (RequestResponse level). */
  wantsResponse(request: object): boolean {
    const p = this.pending.get(request);
    return !!p && p.level === "RequestResponse" && bodiesAllowed(request as AuditedRequest);
  }

  /** The response body of a RequestResponse-level request (JSON text). */
  noteResponse(request: object, body: string): void {
    const p = this.pending.get(request);
    if (!p) return;
    try {
      p.responseObject = JSON.parse(body);
    } catch {
      // Not JSON (YAML, protobuf, a table): kube-apiserver logs the object it encoded; we log none.
    }
  }

  /** A long-running request (a watch) started sending its response. */
  responseStarted(request: object, code: number): void {
    const p = this.pending.get(request);
    if (p) this.emit(request as AuditedRequest, p, "ResponseStarted", code);
  }

  /** The response was sent: its ResponseComplete event. */
  record(request: object, method: string, url: string, code: number): void {
    let p = this.pending.get(request);
    const given = request as AuditedRequest;
    const r: AuditedRequest = {
      id: given.id,
      headers: given.headers,
      body: given.body,
      method,
      url,
      ip: given.ip,
      socket: given.socket,
    };
    if (!p) {
      // Answered before the caller was known: no user, as kube-apiserver logs one (`"user":{}`).
      // Refused at authentication (401), kube's one event: ResponseStarted, saying what was tried.
      p = { user: NO_USER, ...this.levelOf(r, NO_USER), received: new Date().toISOString() };
      if (code === 401) {
        const message = failedAuthenticationMessage(method, url, given.headers ?? {});
        this.emit(r, p, "ResponseStarted", code, message);
        return;
      }
    }
    this.emit(r, p, "ResponseComplete", code);
    this.pending.delete(request);
  }

  /** Writes one line built elsewhere (the cluster gateway's, src/gateway/gateway-audit.ts). */
  write(entry: object): void {
    this.writeLine(`${JSON.stringify(entry)}\n`);
  }

  close(): Promise<void> {
    return this.file ? this.file.close() : Promise.resolve();
  }

  private writeLine(line: string): void {
    if (this.file) this.file.write(line);
    else process.stdout.write(line);
  }

  private levelOf(r: AuditedRequest, user: UserInfo): { level: AuditLevel; omit: readonly AuditStage[] } {
    const d = describeRequest(r.method ?? "GET", r.url ?? "");
    const resourceRequest = d.resourceRequest;
    const rule = matchRule(this.policy, {
      user: user.impersonatedBy ?? user.name,
      groups: user.groups,
      verb: d.verb,
      resource: resourceRequest ? d.resource : "",
      subresource: d.subresource ?? "",
      apiGroup: resourceRequest ? GROUP : "",
      namespace: d.namespace ?? "",
      name: d.name ?? "",
      path: resourceRequest ? "" : d.resource,
    });
    return { level: rule?.level ?? "None", omit: [...this.policy.omitStages, ...(rule?.omitStages ?? [])] };
  }

  private emit(r: AuditedRequest, p: Pending, stage: AuditStage, code?: number, message?: string): void {
    if (p.level === "None" || p.omit.includes(stage)) return;
    const url = r.url ?? "";
    const d = describeRequest(r.method ?? "GET", url);
    const resourceRequest = d.resourceRequest;
    const bodies = bodiesAllowed(r);
    const event = {
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: p.level,
      auditID: r.id ?? randomUUID(),
      stage,
      requestURI: url,
      verb: d.verb,
      ...usersOf(p.user),
      sourceIPs: sourceIPsOf(r),
      ...(typeof r.headers?.["user-agent"] === "string" ? { userAgent: r.headers["user-agent"] } : {}),
      ...(resourceRequest
        ? {
            objectRef: {
              resource: d.resource,
              ...(d.namespace ? { namespace: d.namespace } : {}),
              ...(d.name ? { name: d.name } : {}),
              apiGroup: GROUP,
              apiVersion: VERSION,
              ...(d.subresource ? { subresource: d.subresource } : {}),
            },
          }
        : {}),
      ...(code !== undefined ? { responseStatus: { metadata: {}, ...(message ? { message } : {}), code } } : {}),
      ...(p.level !== "Metadata" && bodies && r.body !== undefined ? requestObjectOf(r) : {}),
      ...(stage === "ResponseComplete" && p.responseObject !== undefined ? { responseObject: p.responseObject } : {}),
      requestReceivedTimestamp: p.received,
      stageTimestamp: new Date().toISOString(),
      ...(p.user.credential?.name
        ? { annotations: { "management.platform/credential": `${p.user.credential.type}/${p.user.credential.name}` } }
        : {}),
    };
    const line = `${JSON.stringify(event)}\n`;
    this.writeLine(line);
    auditEventTotal.inc();
  }
}

/** The caller of a request answered before it was authenticated: no name, no groups (policy rules naming users or groups never match it). */
const NO_USER: UserInfo = { name: "", subjectKind: "Subject", groups: [], teams: [] };

/** kube puts the authenticated user in `user` and the one it acts as in `impersonatedUser`. */
function usersOf(user: UserInfo): { user: AuditUser | Record<string, never>; impersonatedUser?: AuditUser } {
  if (user === NO_USER) return { user: {} };
  const self: AuditUser = { username: user.name, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups };
  if (!user.impersonatedBy) return { user: self };
  return { user: { username: user.impersonatedBy }, impersonatedUser: self };
}

function bodiesAllowed(r: AuditedRequest): boolean {
  const d = describeRequest(r.method ?? "GET", r.url ?? "");
  return !SECRET_BEARING_RESOURCES.has(d.resource) && !d.subresource;
}

function requestObjectOf(r: AuditedRequest): { requestObject?: unknown } {
  const body = r.body;
  const text = Buffer.isBuffer(body) ? body.toString("utf8") : typeof body === "string" ? body : undefined;
  if (text === undefined || text.length === 0) return {};
  try {
    return { requestObject: JSON.parse(text) };
  } catch {
    return {}; // YAML or protobuf bodies: not logged
  }
}

/**
 * kube-apiserver's `sourceIPs` (source-ips.ts): X-Forwarded-For, X-Real-Ip, then the peer, whatever
 * `--trusted-proxies` says. A caller that passes no connection (the console's sign-in names only
 * the client address) gets that address.
 */
function sourceIPsOf(r: AuditedRequest): string[] {
  if (r.socket) return auditSourceIPs(r.headers, r.socket.remoteAddress);
  return r.ip ? [r.ip] : [];
}
