import { API_PREFIX } from "../api/object.js";
import { clientSettings } from "./client-settings.js";
import { CliError } from "./errors.js";
import { send } from "./http-transport.js";
import { networkError } from "./network-errors.js";

/** An API object or list as the server sent it; commands read the fields they know. */
// biome-ignore lint/suspicious/noExplicitAny: JSON from the server, read field by field
export type Json = any;

export const GROUP_API = `${API_PREFIX}/apis/management.platform/v1`;
export const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io, application/json";

export interface Connection {
  /** Base URL (https://host:port), without the API prefix. */
  server: string;
  accessKey?: string;
  insecureSkipTLSVerify?: boolean;
  certificateAuthorityData?: string;
}

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  accept?: string;
  query?: Record<string, string | undefined>;
}

/** A Kubernetes Status body, as every error of the server carries. */
interface StatusBody {
  kind?: string;
  message?: string;
  reason?: string;
  code?: number;
}

/** Strips a trailing slash and the management prefix, so both `https://h:8443` and the kubeconfig form work. */
export function normalizeServer(url: string): string {
  let u: URL;
  try {
    u = new URL(url.includes("://") ? url : `https://${url}`);
  } catch {
    throw new CliError(`not a URL: ${url}`, 2);
  }
  if (u.protocol === "http:") {
    throw new CliError(
      `${url}: the platform API is served over HTTPS only; use https://${u.host}${u.pathname === "/" ? "" : u.pathname}`,
      2,
    );
  }
  if (u.protocol !== "https:") throw new CliError(`not an https URL: ${url}`, 2);
  let path = u.pathname.replace(/\/+$/, "");
  if (path.endsWith(API_PREFIX)) path = path.slice(0, -API_PREFIX.length);
  return `${u.protocol}//${u.host}${path}`;
}

/** The management API over undici: bearer key, stored CA (or none checked), proxy from the environment, Status errors → CliError. */
export class ApiClient {
  constructor(readonly conn: Connection) {}

  get<T = Json>(path: string, options: RequestOptions = {}): Promise<T> {
    return this.request("GET", path, options);
  }
  post<T = Json>(path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return this.request("POST", path, { ...options, body });
  }
  put<T = Json>(path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return this.request("PUT", path, { ...options, body });
  }
  patch<T = Json>(path: string, body: unknown, contentType = "application/merge-patch+json"): Promise<T> {
    return this.request("PATCH", path, { body, contentType });
  }
  delete<T = Json>(path: string, options: RequestOptions = {}): Promise<T> {
    return this.request("DELETE", path, options);
  }

  async request<T = Json>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`${this.conn.server}${path}`);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const headers: Record<string, string> = {
      accept: options.accept ?? "application/json",
      "user-agent": "platform-cli/0.1.0",
    };
    if (this.conn.accessKey) headers.authorization = `Bearer ${this.conn.accessKey}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] = options.contentType ?? "application/json";
    }
    const { debug, requestTimeoutMs } = clientSettings;
    const started = Date.now();
    if (debug) process.stderr.write(`> ${method} ${url.href}\n`);
    let answer: { status: number; text: string };
    try {
      answer = await send(url, {
        method,
        headers,
        body,
        timeoutMs: requestTimeoutMs,
        certificateAuthorityData: this.conn.certificateAuthorityData,
        insecureSkipTLSVerify: this.conn.insecureSkipTLSVerify,
      });
    } catch (err) {
      if (debug)
        process.stderr.write(`< ${method} ${url.href} failed after ${Date.now() - started} ms: ${String(err)}\n`);
      throw networkError(this.conn.server, err, requestTimeoutMs);
    }
    const { status, text } = answer;
    if (debug) process.stderr.write(`< ${status} ${method} ${url.href} in ${Date.now() - started} ms\n`);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (status >= 200 && status < 300) return parsed as T;
    throw this.statusError(status, parsed as StatusBody | undefined, text);
  }

  private statusError(status: number, body: StatusBody | undefined, text: string): CliError {
    const reason = body?.reason;
    let message =
      body?.kind === "Status" && body.message ? body.message : `${status} ${text.trim().slice(0, 200) || "(no body)"}`;
    if (status === 401) {
      // The server says only "Unauthorized" (it must not tell which part was wrong); say what to do.
      message = `${message}: the access key was refused (wrong, expired, disabled or deleted, or its user is disabled). Log in again with \`platform login ${this.conn.server} --access-key KEY\``;
    }
    return new CliError(message, 1, status, reason);
  }
}
