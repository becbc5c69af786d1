/**
 * The audit log: `audit.k8s.io/v1` `Event` JSON lines, as kube-apiserver writes them, so that
 * Kubernetes audit tooling reads it. Stages RequestReceived (once the caller is known),
 * ResponseStarted (watches, when the stream starts) and ResponseComplete; the level of each
 * request comes from the audit policy (audit-policy.ts, Metadata for everything without one).
 *
 * Request and response bodies appear only at the Request and RequestResponse levels, and only
 * for what the server says is safe to keep (`bodiesAuditable`, src/server/audited-bodies.ts): a
 * request to a served kind that carries no secret values, without a subresource. Never for any
 * other path (the console's sign-in, single sign-on, the backup: as kube-apiserver, which logs
 * objects only from its resource handlers), the kinds that carry secret values (shared secrets,
 * access keys, tokens) or a subresource (accesskeys, kubeconfigs): whatever the policy says.
 * Nor does `requestURI` keep the query values of a path that is no resource (SSO's codes).
 */
import { randomUUID } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { GROUP, VERSION } from "../api/object.js";
import { describeRequest } from "../api/request-description.js";
import { auditEventTotal } from "../metrics/metrics.js";
import type { UserInfo } from "../registry/request-context.js";
import type { BodiesAuditable } from "../server/audited-bodies.js";
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

export type { BodiesAuditable };

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
  /** Whether its bodies may be logged (its level asks for them and bodiesAuditable allows them). */
  bodies: boolean;
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
  /** Set by the server (src/audit/audit-hooks.ts); nothing's bodies are logged before. */
  bodiesAuditable: BodiesAuditable = () => false;

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
    const pending: Pending = { user, ...this.levelOf(r, user), received: new Date().toISOString() };
    this.pending.set(request, pending);
    this.emit(r, pending, "RequestReceived");
  }

  /** Whether the response body should be kept for the ResponseComplete event (RequestResponse level). */
  wantsResponse(request: object): boolean {
    const p = this.pending.get(request);
    return !!p && p.level === "RequestResponse" && p.bodies;
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

  private levelOf(
    r: AuditedRequest,
    user: UserInfo,
  ): { level: AuditLevel; omit: readonly AuditStage[]; bodies: boolean } {
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
    const level = rule?.level ?? "None";
    const bodies =
      (level === "Request" || level === "RequestResponse") && this.bodiesAuditable(r.method ?? "GET", r.url ?? "");
    return { level, omit: [...this.policy.omitStages, ...(rule?.omitStages ?? [])], bodies };
  }

  private emit(r: AuditedRequest, p: Pending, stage: AuditStage, code?: number, message?: string): void {
    if (p.level === "None" || p.omit.includes(stage)) return;
    const url = r.url ?? "";
    const d = describeRequest(r.method ?? "GET", url);
    const resourceRequest = d.resourceRequest;
    const event = {
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: p.level,
      auditID: r.id ?? randomUUID(),
      stage,
      requestURI: auditedURI(url, resourceRequest),
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
      ...(p.bodies && r.body !== undefined ? requestObjectOf(r) : {}),
      ...(p.bodies && stage === "ResponseComplete" && p.responseObject !== undefined
        ? { responseObject: p.responseObject }
        : {}),
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

/**
 * The URL as logged: whole for a resource request (its query is list options: selectors,
 * resourceVersion, dryRun), but never a credential some client put in `access_token`; for any
 * other path the query's names only (a sign-in callback's `code` and `state` are credentials).
 */
function auditedURI(url: string, resourceRequest: boolean): string {
  const at = url.indexOf("?");
  if (at < 0) return url;
  const query = new URLSearchParams(url.slice(at + 1));
  const redacted = [...query.keys()].filter((k) => !resourceRequest || k === "access_token");
  if (redacted.length === 0) return url;
  for (const k of redacted) query.set(k, "redacted");
  return `${url.slice(0, at)}?${query.toString()}`;
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
