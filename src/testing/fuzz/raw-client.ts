import { Agent, request } from "node:https";
import { parse as parseYaml } from "yaml";
import type { FuzzRequest } from "./hostile-requests.js";

export interface FuzzResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body decoded per its Content-Type (JSON or YAML), undefined when it is neither. */
  decoded: unknown;
}

export interface FuzzTarget {
  port: number;
  caPem?: string;
  adminKey: string;
}

/**
 * Sends a fuzz request as given: the path is not normalised (no URL parsing), the body is sent
 * with its exact length. Requests without the admin key come from 127.0.0.2 so the failed-authentication
 * limiter, once it blocks that address, does not block the admin's requests from 127.0.0.1.
 * Resolves undefined when Node's client itself refuses to send the request.
 */
export function sendFuzzRequest(
  target: FuzzTarget,
  agents: { good: Agent; bad: Agent },
  req: FuzzRequest,
): Promise<FuzzResponse | undefined> {
  const headers: Record<string, string> = { ...req.headers };
  if (req.auth === "admin") headers.authorization = `Bearer ${target.adminKey}`;
  if (req.body !== undefined) headers["content-length"] = String(Buffer.byteLength(req.body));
  return new Promise((resolve, reject) => {
    let r: ReturnType<typeof request>;
    try {
      r = request(
        {
          host: "127.0.0.1",
          port: target.port,
          method: req.method,
          path: req.path,
          headers,
          ca: target.caPem,
          servername: "localhost",
          agent: req.auth === "admin" ? agents.good : agents.bad,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text,
              decoded: decode(res.headers["content-type"], text),
            });
          });
          res.on("error", reject);
        },
      );
    } catch {
      resolve(undefined); // e.g. a path or header value Node will not send
      return;
    }
    r.on("error", reject);
    // An upgrade the server accepted (an exec through the gateway): answered; nothing more is wanted.
    r.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101, headers: res.headers, text: "", decoded: undefined });
    });
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

function decode(contentType: string | undefined, text: string): unknown {
  try {
    if (contentType?.includes("yaml")) return parseYaml(text);
    if (contentType?.includes("json")) return JSON.parse(text);
  } catch {
    return undefined;
  }
  return undefined;
}

export function fuzzAgents(): { good: Agent; bad: Agent } {
  return {
    good: new Agent({ keepAlive: true, maxSockets: 16 }),
    bad: new Agent({ keepAlive: true, maxSockets: 4, localAddress: "127.0.0.2" }),
  };
}
