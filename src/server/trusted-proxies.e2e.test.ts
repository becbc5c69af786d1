import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { TestIdentityProvider } from "../testing/oidc-test-provider.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

/**
 * `--trusted-proxies` on a running server: 127.0.0.10 plays the load balancer (trusted), 127.0.0.20
 * a client that reaches the server directly and writes its own X-Forwarded-For. Any 127.x address
 * reaches a server on 127.0.0.1.
 */
const PROXY = "127.0.0.10";
const DIRECT = "127.0.0.20";

function getFrom(
  server: TestServer,
  from: string,
  path: string,
  headers: IncomingHttpHeaders = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      new URL(path, server.url),
      { ca: server.caPem, localAddress: from, headers: { accept: "application/json", ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const xff = (value: string) => ({ "x-forwarded-for": value });

describe("a server behind trusted proxies", () => {
  let idp: TestIdentityProvider;
  let server: TestServer;
  const clock = { t: 1_000_000 };

  before(async () => {
    idp = await TestIdentityProvider.start();
    const dataDir = mkdtempSync(join(tmpdir(), "platform-proxies-"));
    server = await startTestServer({
      dataDir,
      trustedProxies: [`${PROXY}/32`],
      oidc: {
        ...idp.platformConfig("proxy-secret"),
        signInLimits: { burstPerAddress: 2, perAddressPerMinute: 1, globalPerSecond: 100 },
      },
      signInClock: () => clock.t,
      auditLog: join(dataDir, "audit.log"),
      maxFailedAuthPerMinute: 3,
    });
    idp.trustPlatform(server.url, "proxy-secret");
  });
  after(async () => {
    await server?.stop();
    await idp?.close();
  });

  const signIn = (from: string, headers?: IncomingHttpHeaders) =>
    getFrom(server, from, "/auth/oidc/login", headers).then((r) => r.status);

  it("limits sign-ins per client behind the proxy: each client its own limit, none a shared one", async () => {
    clock.t += 3_600_000;
    // Two clients through the proxy: the proxy's own address does not lump them together.
    assert.deepEqual([await signIn(PROXY, xff("203.0.113.1")), await signIn(PROXY, xff("203.0.113.1"))], [302, 302]);
    assert.equal(await signIn(PROXY, xff("203.0.113.1")), 429, "the first client used its burst");
    assert.equal(await signIn(PROXY, xff("203.0.113.2")), 302, "the second client has its own");
    // A client that prepends a made-up address of its own is still limited as itself.
    assert.equal(await signIn(PROXY, xff("198.51.100.99, 203.0.113.1")), 429);
  });

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy", async () => {
    clock.t += 3_600_000;
    assert.equal(await signIn(DIRECT, xff("203.0.113.50")), 302);
    assert.equal(await signIn(DIRECT, xff("203.0.113.51")), 302);
    // A new made-up address each time does not buy a new burst: the limit is the peer's.
    assert.equal(await signIn(DIRECT, xff("203.0.113.52")), 429);
    assert.equal(await signIn(DIRECT), 429);
  });

  it("counts failed authentications per client behind the proxy, and per peer otherwise", async () => {
    const path = `${GROUP_PATH}/teams`;
    const wrong = { authorization: "Bearer not-a-key-of-anyone-0123456789abcdef" };
    const tryFrom = async (from: string, forwarded?: string) =>
      (await getFrom(server, from, path, forwarded ? { ...wrong, ...xff(forwarded) } : wrong)).status;
    // Client A behind the proxy uses up its failures; client B behind the same proxy is not blocked.
    for (let i = 0; i < 3; i++) assert.equal(await tryFrom(PROXY, "203.0.113.30"), 401);
    assert.equal(await tryFrom(PROXY, "203.0.113.30"), 429);
    assert.equal(await tryFrom(PROXY, "203.0.113.31"), 401, "another client behind the proxy is not blocked");
    // A peer that is not a proxy cannot escape its block with a new made-up address each time.
    for (let i = 0; i < 3; i++) assert.equal(await tryFrom("127.0.0.21", `198.51.100.${i}`), 401);
    assert.equal(await tryFrom("127.0.0.21", "198.51.100.200"), 429);
  });

  it("lists in the audit log's sourceIPs every X-Forwarded-For entry, then X-Real-Ip, then the peer, as kube-apiserver", async () => {
    const path = `${GROUP_PATH}/teams`;
    const auth = { authorization: `Bearer ${server.adminKey}` };
    const viaProxy = await getFrom(server, PROXY, `${path}?limit=1`, { ...auth, ...xff("1.1.1.1, 203.0.113.9") });
    assert.equal(viaProxy.status, 200, viaProxy.text);
    // From a peer no one trusts, the header is listed too (the limits ignore it: tests above).
    const direct = await getFrom(server, DIRECT, `${path}?limit=2`, { ...auth, ...xff("203.0.113.10") });
    assert.equal(direct.status, 200, direct.text);
    const realIp = await getFrom(server, DIRECT, `${path}?limit=3`, { ...auth, "x-real-ip": "203.0.113.11" });
    assert.equal(realIp.status, 200, realIp.text);
    const plain = await getFrom(server, DIRECT, `${path}?limit=4`, auth);
    assert.equal(plain.status, 200, plain.text);

    const completed = () =>
      readFileSync(join(server.dataDir, "audit.log"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { requestURI?: string; stage?: string; sourceIPs?: string[] })
        .filter((e) => e.stage === "ResponseComplete");
    // The log is appended as the responses end: wait (bounded) for both lines.
    const events = await waitFor(
      "the four requests' audit lines",
      async () => completed(),
      (logged) => logged.filter((e) => e.requestURI?.includes("limit=")).length >= 4,
    );
    const of = (uri: string) => events.find((e) => e.requestURI === uri)?.sourceIPs;
    assert.deepEqual(of(`${path}?limit=1`), ["1.1.1.1", "203.0.113.9", PROXY]);
    assert.deepEqual(of(`${path}?limit=2`), ["203.0.113.10", DIRECT]);
    assert.deepEqual(of(`${path}?limit=3`), ["203.0.113.11", DIRECT]);
    assert.deepEqual(of(`${path}?limit=4`), [DIRECT]);
  });
});
