import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";

/** What a fast path wrote, once it has answered. */
export interface Written {
  status?: number;
  headers?: Record<string, unknown>;
  body?: Buffer;
}

export interface FakeRequestOptions {
  /** Default: POST with a body, else GET. */
  method?: string;
  headers?: Record<string, string>;
  /** Sent as the request's stream, with JSON content-type and content-length (which `headers` may override). */
  body?: string;
}

/**
 * A request and response as the fast branches (server/fast-get.ts, server/fast-create.ts) see them,
 * before fastify: `res` records what was written into `written`, and `done` resolves once the
 * answer has ended. A request without a body has no stream (the fast GET path never reads one).
 */
export function fakeRequest(url: string, options: FakeRequestOptions = {}) {
  const { body, headers = {} } = options;
  const method = options.method ?? (body === undefined ? "GET" : "POST");
  const fields = { method, url, headers, socket: { remoteAddress: "127.0.0.1" } };
  const req = (body === undefined
    ? fields
    : Object.assign(Readable.from([Buffer.from(body)]), {
        ...fields,
        headers: {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          ...headers,
        },
      })) as unknown as IncomingMessage;
  const written: Written = {};
  let ended: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    ended = resolve;
  });
  // Headers set before the head (the front door's X-Request-Id), which writeHead keeps, as node's does.
  const set: Record<string, unknown> = {};
  const res = {
    headersSent: false,
    destroyed: false,
    setHeader(name: string, value: unknown) {
      set[name.toLowerCase()] = value;
    },
    getHeader(name: string) {
      return set[name.toLowerCase()];
    },
    writeHead(status: number, h: Record<string, unknown>) {
      written.status = status;
      written.headers = { ...set, ...h };
    },
    end(payload: Buffer | string) {
      written.body = Buffer.from(payload);
      ended();
    },
  } as unknown as ServerResponse;
  return { req, res, written, done };
}
