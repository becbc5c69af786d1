import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { connect } from "node:tls";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { guardRequest } from "./request-guard.js";

/**
 * The https server's last line of defence: an exception thrown while a request is handled is
 * that request's 500 Status and one log line, never the process's end, and never the
 * exception's text in the answer.
 */
describe("request guard", () => {
  it("answers a throwing handler with a 500 Status, logs it, and serves the next request", async () => {
    const logged: Array<{ fields: object; message: string }> = [];
    let throwing = true;
    const server = createServer(
      guardRequest(
        (_req, res) => {
          if (throwing) throw new Error("secret-detail of the failure");
          res.end("ok");
        },
        { error: (fields, message) => logged.push({ fields, message }) },
      ),
    );
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    try {
      const failed = await plainGet(port, "/x?token=abc");
      assert.equal(failed.status, 500);
      const status = JSON.parse(failed.text);
      assert.deepEqual([status.kind, status.code, status.reason], ["Status", 500, "InternalError"]);
      assert.ok(!failed.text.includes("secret-detail"), "the exception's text stays in the log");
      assert.equal(logged.length, 1);
      assert.equal((logged[0]!.fields as { path?: string }).path, "/x", "the path is logged without its query");
      throwing = false;
      assert.equal((await plainGet(port, "/x")).text, "ok");
    } finally {
      server.close();
    }
  });

  describe("in the server", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
    });
    after(async () => {
      await server.stop();
    });

    it("a request whose handling throws is its own 500; the server serves on", async () => {
      const gateway = server.gateway;
      const original = gateway.handleRequest;
      gateway.handleRequest = () => {
        throw new Error("a bug nobody foresaw");
      };
      try {
        const res = await server.request("GET", "/kubernetes/cluster/c1/api");
        assert.equal(res.status, 500, res.text);
        assert.equal(res.json.kind, "Status");
        assert.ok(!res.text.includes("nobody foresaw"));
      } finally {
        gateway.handleRequest = original;
      }
      assert.equal((await server.request("GET", "/readyz", { token: null })).status, 200);
    });

    it("an upgrade whose handling throws is a 500 on its socket; the server serves on", async () => {
      const gateway = server.gateway;
      const original = gateway.handleUpgrade;
      gateway.handleUpgrade = () => {
        throw new Error("a bug nobody foresaw");
      };
      try {
        const head = await rawUpgrade(server);
        assert.match(head, /^HTTP\/1\.1 500 /, head);
        assert.match(head, /"kind":"Status"/);
      } finally {
        gateway.handleUpgrade = original;
      }
      assert.equal((await server.request("GET", "/readyz", { token: null })).status, 200);
    });
  });
});

function plainGet(port: number, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => {
        text += c.toString("utf8");
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

function rawUpgrade(server: TestServer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: server.port, ca: server.caPem, servername: "localhost" }, () => {
      socket.write(
        "GET /kubernetes/cluster/c1/api HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
      );
    });
    let text = "";
    socket.on("data", (c: Buffer) => {
      text += c.toString("utf8");
    });
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
}
