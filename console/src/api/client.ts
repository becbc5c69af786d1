import { inWords } from "./in-words";
import { setReachable, UnreachableError } from "./reachability";

/** The management API, called with the session cookie (same origin) and the session's CSRF token. */
export const API = "/kubernetes/management/apis/management.platform/v1";
export const AUTHZ_API = "/kubernetes/management/apis/authorization.k8s.io/v1";
/** Named in managedFields for every field the console writes (else the server takes the browser's User-Agent). */
export const FIELD_MANAGER = "platform-console";
const WRITES = new Set(["POST", "PUT", "PATCH"]);

export interface StatusCause {
  field?: string;
  message?: string;
  reason?: string;
}

export interface Status {
  kind: "Status";
  message?: string;
  reason?: string;
  code?: number;
  details?: { causes?: StatusCause[] };
}

/** An answer other than 2xx, with the server's Status when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly status: Status | undefined,
  ) {
    super(inWords(status?.message || `request failed with HTTP ${code}`));
  }

  /** The causes naming a field, by field path (`spec.email`, `metadata.name`). */
  fieldErrors(): Map<string, string> {
    const out = new Map<string, string>();
    for (const c of this.status?.details?.causes ?? []) {
      if (c.field) out.set(c.field, [out.get(c.field), inWords(c.message ?? "")].filter(Boolean).join("; "));
    }
    return out;
  }
}

let csrfToken = "";

/** Kept in this page's memory only: a reload asks the server again (GET /console/api/session). */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

const unauthorizedListeners = new Set<() => void>();

/** Called when the server says the session is gone (401). */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  /** The Accept header (default application/json). */
  accept?: string;
  signal?: AbortSignal;
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const res = await send(method, path, options);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** The raw Response of a successful request (watch streams read it themselves). */
export async function send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: options.accept ?? "application/json" };
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["content-type"] = options.contentType ?? "application/json";
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(withFieldManager(method, path), {
      method,
      headers,
      body,
      credentials: "same-origin",
      signal: options.signal,
    });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    setReachable(false);
    throw new UnreachableError();
  }
  setReachable(true);
  if (res.ok) return res;
  let status: Status | undefined;
  try {
    const parsed = (await res.json()) as Status;
    if (parsed && parsed.kind === "Status") status = parsed;
  } catch {
    status = undefined;
  }
  if (res.status === 401 && !path.startsWith("/console/api/session")) {
    for (const l of unauthorizedListeners) l();
  }
  throw new ApiError(res.status, status);
}

function withFieldManager(method: string, path: string): string {
  if (!WRITES.has(method) || !path.startsWith(API)) return path;
  return `${path}${path.includes("?") ? "&" : "?"}fieldManager=${FIELD_MANAGER}`;
}

/**
 * The error to show where it happened: none when the server could not be reached, which the
 * banner (ConnectionBanner) says once for the whole page.
 */
export function errorToShow(err: unknown): unknown {
  return err instanceof UnreachableError ? null : err;
}

/** A plain-language line for any error, Forbidden ones included. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 403) return `You are not allowed to do this: ${err.message}`;
    if (err.code === 404) return `Not found: ${err.message}`;
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}
