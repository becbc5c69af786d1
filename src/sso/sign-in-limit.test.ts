import assert from "node:assert/strict";
import type { IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { after, before, describe, it } from "node:test";
import { TestIdentityProvider } from "../testing/oidc-test-provider.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { SIGN_IN_SPACE } from "./pending.js";

const SIGN_INS = `/platform-internal/${SIGN_IN_SPACE}/`;
const CLI_QUERY = `cli_port=40000&cli_challenge=${"c".repeat(43)}&cli_state=${"s".repeat(20)}`;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** GET `path` from the source address `from` (any 127.x address reaches a server on 127.0.0.1). */
function getFrom(server: TestServer, from: string, path: string, accept = "text/html"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      new URL(path, server.url),
      { ca: server.caPem, localAddress: from, headers: { accept }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("limits on starting a sign-in (GET /auth/oidc/login)", () => {
  let idp: TestIdentityProvider;
  let server: TestServer;
  /** The limiter's clock: stepped by the tests, never read from the wall. */
  const clock = { t: 1_000_000 };

  before(async () => {
    idp = await TestIdentityProvider.start();
    server = await startTestServer({
      oidc: {
        ...idp.platformConfig("limit-secret"),
        signInLimits: { burstPerAddress: 3, perAddressPerMinute: 1, globalPerSecond: 5 },
      },
      signInClock: () => clock.t,
    });
    idp.trustPlatform(server.url, "limit-secret");
  });

  after(async () => {
    await server?.stop();
    await idp?.close();
  });

  async function storedSignIns(): Promise<number> {
    return (await server.storage.list(SIGN_INS)).items.length;
  }

  it("an address is refused after its burst, browser and CLI flows alike; another address still signs in", async () => {
    clock.t += 3_600_000;
    const before = await storedSignIns();
    for (const path of ["/auth/oidc/login", `/auth/oidc/login?${CLI_QUERY}`, "/auth/oidc/login"]) {
      const ok = await getFrom(server, "127.0.0.2", path);
      assert.equal(ok.status, 302, ok.text);
      assert.ok(ok.headers.location?.startsWith(idp.issuer), ok.headers.location);
    }
    assert.equal(await storedSignIns(), before + 3);

    const page = await getFrom(server, "127.0.0.2", "/auth/oidc/login");
    assert.equal(page.status, 429);
    assert.equal(page.headers["retry-after"], "60");
    assert.match(String(page.headers["content-type"]), /text\/html/);
    assert.match(page.text, /too many sign-ins were started from this address/i);
    assert.equal(page.headers["set-cookie"], undefined);

    const status = await getFrom(server, "127.0.0.2", `/auth/oidc/login?${CLI_QUERY}`, "application/json");
    assert.equal(status.status, 429);
    assert.equal(status.headers["retry-after"], "60");
    const body = JSON.parse(status.text) as Record<string, unknown>;
    assert.equal(body.kind, "Status");
    assert.equal(body.reason, "TooManyRequests");
    assert.equal(body.code, 429);
    assert.match(String(body.message), /from this address/);
    assert.equal(await storedSignIns(), before + 3, "a refused sign-in writes nothing");

    const other = await getFrom(server, "127.0.0.3", "/auth/oidc/login");
    assert.equal(other.status, 302, other.text);
    assert.equal(await storedSignIns(), before + 4);

    // The sustained rate: one a minute.
    clock.t += 60_000;
    assert.equal((await getFrom(server, "127.0.0.2", "/auth/oidc/login")).status, 302);
    assert.equal((await getFrom(server, "127.0.0.2", "/auth/oidc/login")).status, 429);
  });

  it("caps sign-ins per second across addresses, without writing the refused ones", async () => {
    clock.t += 3_600_000;
    const before = await storedSignIns();
    const addresses = ["127.0.1.1", "127.0.1.2", "127.0.1.3", "127.0.1.4", "127.0.1.5", "127.0.1.6", "127.0.1.7"];
    const statuses: number[] = [];
    for (const from of addresses) statuses.push((await getFrom(server, from, "/auth/oidc/login")).status);
    assert.deepEqual(statuses, [302, 302, 302, 302, 302, 429, 429]);
    assert.equal(await storedSignIns(), before + 5);

    const refused = await getFrom(server, "127.0.1.8", "/auth/oidc/login", "application/json");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers["retry-after"], "1");
    assert.match(refused.text, /too many sign-ins are being started on this server/);

    clock.t += 1_000;
    assert.equal((await getFrom(server, "127.0.1.8", "/auth/oidc/login")).status, 302);
    assert.equal(await storedSignIns(), before + 6);
  });

  it("a malformed CLI request is refused as before and spends no token", async () => {
    clock.t += 3_600_000;
    for (let i = 0; i < 4; i++) {
      assert.equal((await getFrom(server, "127.0.2.1", "/auth/oidc/login?cli_port=1")).status, 400);
    }
    assert.equal((await getFrom(server, "127.0.2.1", "/auth/oidc/login")).status, 302);
  });
});
