import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { API_PREFIX } from "../api/object.js";
import { CliError } from "./errors.js";

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
  if (u.protocol !== "https:" && u.protocol !== "http:") throw new CliError(`not an http(s) URL: ${url}`, 2);
  let path = u.pathname.replace(/\/+$/, "");
  if (path.endsWith(API_PREFIX)) path = path.slice(0, -API_PREFIX.length);
  return `${u.protocol}//${u.host}${path}`;
}

/** The management API over node:https: bearer key, stored CA (or none checked), Status errors → CliError. */
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
  delete<T = Json>(path: string): Promise<T> {
    return this.request("DELETE", path, {});
  }

  request<T = Json>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`${this.conn.server}${path}`);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const headers: Record<string, string> = {
      accept: options.accept ?? "application/json",
      "user-agent": "platform-cli/0.1.0",
    };
    if (this.conn.accessKey) headers.authorization = `Bearer ${this.conn.accessKey}`;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers["content-type"] = options.contentType ?? "application/json";
    }
    const isHttps = url.protocol === "https:";
    const send = isHttps ? httpsRequest : httpRequest;
    return new Promise<T>((resolve, reject) => {
      const req = send(
        url,
        {
          method,
          headers,
          // One request per process: no keep-alive socket holding the process open afterwards.
          agent: false,
          ...(isHttps
            ? {
                ca: this.conn.certificateAuthorityData || undefined,
                rejectUnauthorized: !this.conn.insecureSkipTLSVerify,
              }
            : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", (err) => reject(this.networkError(err)));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            const status = res.statusCode ?? 0;
            let body: unknown;
            try {
              body = text ? JSON.parse(text) : undefined;
            } catch {
              body = undefined;
            }
            if (status >= 200 && status < 300) {
              resolve(body as T);
              return;
            }
            reject(this.statusError(status, body as StatusBody | undefined, text));
          });
        },
      );
      req.on("error", (err) => reject(this.networkError(err)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
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

  private networkError(err: NodeJS.ErrnoException): CliError {
    const where = this.conn.server;
    switch (err.code) {
      case "ECONNREFUSED":
        return new CliError(`cannot reach ${where}: connection refused (is the server running?)`);
      case "ENOTFOUND":
      case "EAI_AGAIN":
        return new CliError(`cannot reach ${where}: host not found`);
      case "ETIMEDOUT":
      case "ECONNRESET":
        return new CliError(`cannot reach ${where}: ${err.code}`);
      case "DEPTH_ZERO_SELF_SIGNED_CERT":
      case "SELF_SIGNED_CERT_IN_CHAIN":
      case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
      case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
      case "ERR_TLS_CERT_ALTNAME_INVALID":
      case "CERT_HAS_EXPIRED":
        return new CliError(
          `cannot verify the certificate of ${where} (${err.message}); pass --certificate-authority FILE (the server's ca.crt) or, for a test server, --insecure-skip-tls-verify`,
        );
      default:
        return new CliError(`cannot reach ${where}: ${err.message}`);
    }
  }
}
