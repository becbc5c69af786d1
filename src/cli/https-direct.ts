import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

/** The proxy variables undici's EnvHttpProxyAgent reads; set (and not empty), the request goes through it. */
const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/** Whether a proxy is configured: only then is undici (with its NO_PROXY rules) worth loading. */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return PROXY_VARIABLES.some((name) => (env[name] ?? "") !== "");
}

export interface DirectRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  certificateAuthorityData?: string;
  insecureSkipTLSVerify?: boolean;
  /** The whole request's limit, connecting included. 0: none. */
  timeoutMs: number;
}

/**
 * One request over node:https, which is already in the process: loading undici costs a client
 * command more than the request itself, and without a proxy nothing here needs it. Errors carry
 * the system's and TLS codes (network-errors.ts reads them); a timeout is an AbortError.
 */
export function sendDirect(url: URL, init: DirectRequest): Promise<{ status: number; text: string }> {
  // Logins are https only (api-client.ts); an http URL written into the config by hand (a test's
  // stub server) is still served, as undici served it.
  const request = url.protocol === "http:" ? httpRequest : httpsRequest;
  return new Promise((done, fail) => {
    const req = request(
      url,
      {
        method: init.method,
        // Spelled out: node sends a DELETE's body without a length or chunking otherwise.
        headers:
          init.body === undefined
            ? init.headers
            : { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) },
        ...(init.certificateAuthorityData ? { ca: init.certificateAuthorityData } : {}),
        rejectUnauthorized: !init.insecureSkipTLSVerify,
        // A fresh connection, closed after the answer: nothing keeps the process alive.
        agent: false,
        ...(init.timeoutMs > 0 ? { signal: AbortSignal.timeout(init.timeoutMs) } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", fail);
        res.on("end", () => done({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      },
    );
    req.on("error", fail);
    req.end(init.body);
  });
}
