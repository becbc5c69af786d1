import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { connect, createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli } from "../testing/cli-run.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";

/** The CLI's HTTP transport: timeouts, proxies, --debug and the messages for what goes wrong. */
describe("platform CLI transport", () => {
  let server: TestServer;
  let home: string;
  const homes: string[] = [];
  const newHome = () => {
    const h = mkdtempSync(join(tmpdir(), "platform-cli-"));
    homes.push(h);
    return h;
  };
  const loginAs = (h: string, url: string) =>
    writeFileSync(
      join(h, "config.json"),
      JSON.stringify({ login: { server: url, accessKey: server.adminKey, certificateAuthorityData: server.caPem } }),
      { mode: 0o600 },
    );

  before(async () => {
    server = await startTestServer();
    home = newHome();
    loginAs(home, server.url);
  });
  after(async () => {
    await server.stop();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it("a host that accepts but never answers fails after --request-timeout with a clear message", async () => {
    const sockets: Socket[] = [];
    const silent: NetServer = createNetServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const url = `https://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const h = newHome();
    loginAs(h, url);
    try {
      const r = await runCli(h, ["list", "users", "--request-timeout", "1s"]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`no answer from ${url.replace(/\./g, "\\.")} within 1 s \\(--request-timeout\\)`),
      );
      assert.doesNotMatch(r.stderr, /\n\s+at /);
      const bad = await runCli(h, ["list", "users", "--request-timeout", "soon"]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--request-timeout must be a duration/);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it("an http:// URL is refused with the https:// one to use", async () => {
    const r = await runCli(newHome(), ["login", "http://127.0.0.1:8443", "--access-key", server.adminKey]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /served over HTTPS only; use https:\/\/127\.0\.0\.1:8443/);
  });

  it("an unknown CA says how to pass --certificate-authority or --insecure-skip-tls-verify", async () => {
    const r = await runCli(newHome(), ["login", server.url, "--access-key", server.adminKey]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /signed by a CA this client does not trust/);
    assert.match(r.stderr, /--certificate-authority FILE/);
    assert.match(r.stderr, /--insecure-skip-tls-verify/);
  });

  it("--debug prints each request and the status of its answer", async () => {
    const r = await runCli(home, ["--debug", "list", "users"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      /^> GET https:\/\/127\.0\.0\.1:\d+\/kubernetes\/management\/apis\/management\.platform\/v1\/users$/m,
    );
    assert.match(r.stderr, /^< 200 GET https:\/\/\S+\/users in \d+ ms$/m);
    assert.match(r.stdout, /admin/);
    const quiet = await runCli(home, ["list", "users"]);
    assert.doesNotMatch(quiet.stderr, /^> GET/m);
  });

  it("without a proxy a request goes over node:https and never loads undici (most of a command's start)", async () => {
    // NODE_DEBUG=module logs every CommonJS load, undici's included.
    const direct = await runCli(home, ["list", "users"], { NODE_DEBUG: "module" });
    assert.equal(direct.code, 0, direct.stderr);
    assert.match(direct.stdout, /^admin\s/m);
    assert.match(direct.stderr, /MODULE/, "the log is on");
    assert.doesNotMatch(direct.stderr, /undici/);
    const proxied = await runCli(home, ["list", "users"], {
      NODE_DEBUG: "module",
      HTTPS_PROXY: "http://127.0.0.1:1",
      NO_PROXY: "127.0.0.1",
    });
    assert.equal(proxied.code, 0, proxied.stderr);
    assert.match(proxied.stderr, /undici/, "with a proxy configured, undici applies it and NO_PROXY");
  });

  it("HTTPS_PROXY is used (CONNECT through it) unless NO_PROXY names the host", async () => {
    const tunnels: string[] = [];
    const proxy: Server = createHttpServer((_req, res) => res.writeHead(405).end());
    proxy.on("connect", (req, client: Socket, head: Buffer) => {
      tunnels.push(req.url ?? "");
      const [host, port] = (req.url ?? "").split(":");
      const upstream = connect(Number(port), host, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    try {
      const via = await runCli(home, ["list", "users"], { HTTPS_PROXY: proxyUrl });
      assert.equal(via.code, 0, via.stderr);
      assert.deepEqual(tunnels, [new URL(server.url).host]);
      const direct = await runCli(home, ["list", "users"], { HTTPS_PROXY: proxyUrl, NO_PROXY: "127.0.0.1" });
      assert.equal(direct.code, 0, direct.stderr);
      assert.equal(tunnels.length, 1, "NO_PROXY bypasses the proxy");
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });
});
