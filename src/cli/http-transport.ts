import { createRequire } from "node:module";
import type { Dispatcher } from "undici";
import { CliError } from "./errors.js";
import { proxyConfigured, sendDirect } from "./https-direct.js";

type Undici = typeof import("undici");

/**
 * The CLI's HTTP transport: node:https without a proxy (https-direct.ts); with HTTPS_PROXY /
 * HTTP_PROXY set, undici, loaded on the first request (it is most of a client command's start-up
 * cost), whose EnvHttpProxyAgent honours them and NO_PROXY.
 */
let undici: Undici | undefined;
function load(): Undici {
  undici ??= createRequire(import.meta.url)("undici") as Undici;
  return undici;
}

export interface TransportOptions {
  certificateAuthorityData?: string;
  insecureSkipTLSVerify?: boolean;
  /** The whole request's limit; it bounds connecting (TCP and TLS handshake) too. 0: none. */
  timeoutMs: number;
}

/** One dispatcher per CLI process and TLS setting; closed by closeTransports() so no socket keeps the process alive. */
const dispatchers = new Map<string, Dispatcher>();

function dispatcherFor(options: TransportOptions): Dispatcher {
  const key = `${options.timeoutMs}:${options.insecureSkipTLSVerify ? 1 : 0}:${options.certificateAuthorityData ?? ""}`;
  const known = dispatchers.get(key);
  if (known) return known;
  const { EnvHttpProxyAgent } = load();
  const tls = {
    ...(options.certificateAuthorityData ? { ca: options.certificateAuthorityData } : {}),
    rejectUnauthorized: !options.insecureSkipTLSVerify,
    // A silent host would otherwise hold the connect for undici's own 10 s whatever the signal says.
    ...(options.timeoutMs > 0 ? { timeout: options.timeoutMs } : {}),
  };
  // `connect` is the TLS of a direct connection, `requestTls` the TLS to the server through a proxy
  // (EnvHttpProxyAgent hands its options to the ProxyAgents it makes; its type does not list it).
  const agentOptions = { connect: tls, requestTls: tls } as ConstructorParameters<Undici["EnvHttpProxyAgent"]>[0];
  const dispatcher = withoutExperimentalWarning(() => new EnvHttpProxyAgent(agentOptions));
  dispatchers.set(key, dispatcher);
  return dispatcher;
}

/** Closes every dispatcher (idle keep-alive sockets would otherwise hold the process for a second). */
export async function closeTransports(): Promise<void> {
  const all = [...dispatchers.values()];
  dispatchers.clear();
  await Promise.all(all.map((d) => d.close().catch(() => {})));
}

/**
 * EnvHttpProxyAgent warns once that it is experimental; a CLI user can do nothing about it, so that
 * one warning (and only it) is not printed.
 */
function withoutExperimentalWarning<T>(make: () => T): T {
  const original = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const options = rest[0] as { code?: string } | undefined;
    if (options && typeof options === "object" && options.code === "UNDICI-EHPA") return;
    (original as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return make();
  } finally {
    process.emitWarning = original;
  }
}

/** Sends one request and reads the whole answer. */
export async function send(
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string } & TransportOptions,
): Promise<{ status: number; text: string }> {
  if (!proxyConfigured()) return sendDirect(url, init);
  const { request } = load();
  const signal = init.timeoutMs > 0 ? AbortSignal.timeout(init.timeoutMs) : undefined;
  const res = await request(url, {
    method: init.method as Dispatcher.HttpMethod,
    headers: init.headers,
    body: init.body,
    dispatcher: dispatcherFor(init),
    ...(signal ? { signal } : {}),
    // The overall --request-timeout governs; undici's own 300 s defaults would only be later.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

/** Parses --request-timeout as kubectl does: `0` (none), a number of seconds, or a duration such as 30s, 1m, 500ms. */
export function parseRequestTimeout(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m)
    throw new CliError(`--request-timeout must be a duration such as 30s, 1m or 0 (no timeout), got "${value}"`, 2);
  const n = Number(m[1]);
  const unit = m[2] ?? "s";
  const factor = unit === "ms" ? 1 : unit === "s" ? 1000 : unit === "m" ? 60_000 : 3_600_000;
  return Math.round(n * factor);
}
