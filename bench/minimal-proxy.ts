/**
 * Child mode `minproxy DATADIR`: the least any Node.js HTTPS reverse proxy does per request, as a
 * second baseline for the GATEWAY phase. A node:https server (the platform's TLS certificate and
 * preferences) forwards every request through one undici Pool (same options as the gateway's) to
 * the stand-in cluster with its bearer token, and answers with the upstream's status, its
 * Content-Type and body in one write. No authentication, authorization, header hygiene, audit or
 * streaming: what is left is the two TLS legs and the HTTP of both. First message (from the
 * driver) {url, token, caPem}; answers {port}, then {cmd:"cpu"} with {cpuMs}.
 */
import { createServer } from "node:https";
import { createSecureContext } from "node:tls";
import { Pool } from "undici";
import { loadOrCreateServerTls, TLS_PREFERENCES } from "../dist/testing/bench-entry.js";

interface Hello {
  url: string;
  token: string;
  caPem: string;
}

export async function minimalProxyChild(dataDir: string): Promise<void> {
  const hello = await new Promise<Hello>((resolve) => process.once("message", (m) => resolve(m as Hello)));
  const tls = await loadOrCreateServerTls(dataDir);
  const origin = new URL(hello.url).origin;
  const pool = new Pool(origin, {
    connect: { secureContext: createSecureContext({ ca: hello.caPem }) },
    keepAliveTimeout: 4_000,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const authorization = `Bearer ${hello.token}`;
  // Exit (not die) on kill(), so that a --cpu-prof profile is written.
  process.on("SIGTERM", () => process.exit(0));
  const srv = createServer({ key: tls.keyPem, cert: tls.certPem, ...TLS_PREFERENCES }, (req, res) => {
    req.resume();
    // dispatch() with a bare handler: undici's leanest API (no body stream, no promise).
    const chunks: Buffer[] = [];
    let status = 502;
    let type = "application/json";
    pool.dispatch(
      { path: req.url ?? "/", method: "GET", headers: { authorization } },
      {
        onConnect() {},
        onHeaders(code, raw) {
          status = code;
          for (let i = 0; raw && i + 1 < raw.length; i += 2) {
            if (raw[i]!.toString().toLowerCase() === "content-type") type = raw[i + 1]!.toString();
          }
          return true;
        },
        onData(chunk) {
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
          res.writeHead(status, { "content-type": type, "content-length": body.length });
          res.end(body);
        },
        onError() {
          res.writeHead(502);
          res.end();
        },
      },
    );
  });
  process.on("message", (msg: { cmd: string }) => {
    if (msg.cmd === "cpu") {
      const used = process.cpuUsage();
      process.send!({ cpuMs: (used.user + used.system) / 1000 });
    }
  });
  srv.listen(0, "127.0.0.1", () => process.send!({ port: (srv.address() as { port: number }).port }));
}
