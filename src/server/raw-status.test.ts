import assert from "node:assert/strict";
import { createServer, get } from "node:http";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { writeStatus, writeStatusToSocket } from "./raw-status.js";

/** A plain HTTP server whose answers (and upgrade answers) are written by raw-status.ts. */
async function serve(details?: { retryAfterSeconds?: number }) {
  const server = createServer((_req, res) => {
    writeStatus(res, 429, "TooManyRequests", "slow down", details);
  });
  server.on("upgrade", (req, socket) => {
    writeStatusToSocket(socket, req.method, 429, "TooManyRequests", "slow down", details);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : 0 };
}

function upgradeAnswer(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write("GET /x HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
    });
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => {
      text += d;
    });
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
}

function plainAnswer(port: number): Promise<{ headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path: "/x", agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ headers: res.headers, body }));
    }).on("error", reject);
  });
}

describe("raw Status answers", () => {
  it("a Status asking to retry after N seconds carries Retry-After: N, on a response and on an upgrade's socket", async () => {
    const { server, port } = await serve({ retryAfterSeconds: 3 });
    try {
      const plain = await plainAnswer(port);
      assert.equal(plain.headers["retry-after"], "3");
      assert.equal(JSON.parse(plain.body).details.retryAfterSeconds, 3);
      const upgrade = await upgradeAnswer(port);
      assert.match(upgrade, /^HTTP\/1\.1 429 Too Many Requests\r\n/);
      assert.match(upgrade, /\r\nretry-after: 3\r\n/i);
      assert.match(upgrade, /\r\nConnection: close\r\n/);
      assert.equal(JSON.parse(upgrade.slice(upgrade.indexOf("\r\n\r\n") + 4)).code, 429);
    } finally {
      server.close();
    }
  });

  it("a Status without a retry time carries no Retry-After", async () => {
    const { server, port } = await serve();
    try {
      assert.equal((await plainAnswer(port)).headers["retry-after"], undefined);
      assert.doesNotMatch(await upgradeAnswer(port), /retry-after/i);
    } finally {
      server.close();
    }
  });
});
