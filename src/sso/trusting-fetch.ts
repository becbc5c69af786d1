import { request as httpsRequest } from "node:https";
import type { CustomFetch } from "openid-client";

/**
 * A fetch for openid-client that trusts the given CA(s) for the IdP's certificate (`--oidc-ca-file`):
 * Node's global fetch takes no CA option. It only carries bytes; the protocol stays openid-client's.
 */
export function fetchTrusting(caPem: string): CustomFetch {
  return (url, options) =>
    new Promise<Response>((resolve, reject) => {
      const req = httpsRequest(
        url,
        { method: options.method, headers: options.headers, ca: caPem, signal: options.signal },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers)) {
              if (value === undefined) continue;
              for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
            }
            const status = res.statusCode ?? 502;
            const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
            resolve(new Response(body, { status, headers }));
          });
        },
      );
      req.on("error", reject);
      req.end(bodyBytes(options.body));
    });
}

function bodyBytes(body: unknown): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError("unsupported request body for the identity provider");
}
