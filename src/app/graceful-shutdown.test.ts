import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { Agent, request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { connect, type TLSSocket } from "node:tls";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { callAsAdmin, type ServerProcess, startServerProcess } from "../testing/server-process.js";
import { GROUP_PATH } from "../testing/test-server.js";

/**
 * SIGTERM with requests in flight, on a real `platform start` process: no new connection, a
 * request in flight finishes (its answer closes the connection), a watch ends cleanly, a request
 * on a connection still open is refused with 429 and Retry-After (but /readyz answers 500 with
 * its `shutdown` check failing, /livez and /healthz 200), the store closes only after all that,
 * and the process exits 0 without an error in its log. A request that outlives
 * `--shutdown-grace-period` is cut off.
 */

/** Hang guard (not a timing assertion): a wait that does not end within this fails the test. */
const WAIT_MS = 60_000;

async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A create whose body is sent in two parts: the request is in flight between them. It asks for
 * `100 Continue`, which node's server sends as it hands the request on: once it came, the server
 * has the request.
 */
class SlowCreate {
  readonly socket: TLSSocket;
  response = "";
  readonly closed: Promise<void>;
  private readonly body: string;

  constructor(server: ServerProcess, name: string) {
    this.body = JSON.stringify({ apiVersion: "management.platform/v1", kind: "Team", metadata: { name }, spec: {} });
    this.socket = connect({ host: "127.0.0.1", port: server.port, ca: server.caPem, servername: "localhost" });
    this.socket.setEncoding("utf8");
    this.socket.on("data", (d: string) => {
      this.response += d;
    });
    this.closed = new Promise((resolve) => {
      this.socket.on("close", () => resolve());
      this.socket.on("error", () => resolve());
    });
    this.socket.write(
      `POST ${GROUP_PATH}/teams HTTP/1.1\r\nHost: platform\r\nAuthorization: Bearer ${server.adminKey}\r\n` +
        `Content-Type: application/json\r\nExpect: 100-continue\r\n` +
        `Content-Length: ${Buffer.byteLength(this.body)}\r\n\r\n${this.body.slice(0, 10)}`,
    );
  }

  /** Resolves once the server has the request (its 100 Continue came). */
  received(): Promise<void> {
    return until("100 Continue", () => this.response.startsWith("HTTP/1.1 100 Continue\r\n\r\n"));
  }

  /** The final answer's status line, or undefined. */
  get finalStatus(): string | undefined {
    return /^HTTP\/1\.1 [2-5]\d\d [^\r]*/m.exec(this.response)?.[0];
  }

  finish(): void {
    this.socket.write(this.body.slice(10));
  }
}

/** A watch on `agent`, resolving with how its response ended. */
function watchTeams(server: ServerProcess, agent: Agent): { started: Promise<void>; ended: Promise<string> } {
  let started!: () => void;
  const startedP = new Promise<void>((r) => {
    started = r;
  });
  const ended = new Promise<string>((resolve) => {
    const req = request(
      new URL(`${GROUP_PATH}/teams?watch=true`, server.url),
      { agent, ca: server.caPem, headers: { authorization: `Bearer ${server.adminKey}` } },
      (res) => {
        started();
        res.resume();
        res.on("end", () => resolve(`end ${res.statusCode}`));
        res.on("error", (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) => resolve(`request error ${e.code}`));
    req.end();
  });
  return { started: startedP, ended };
}

/** GET of the teams on `agent` (a connection it keeps open, when it has one). */
function getTeams(
  server: ServerProcess,
  agent: Agent,
): Promise<{ status?: number; headers: IncomingHttpHeaders; text: string }> {
  return get(server, agent, `${GROUP_PATH}/teams`, { authorization: `Bearer ${server.adminKey}` });
}

function get(
  server: ServerProcess,
  agent: Agent,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status?: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { agent, ca: server.caPem, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        text += c;
      });
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end();
  });
}

const stopping = (server: ServerProcess) => () => server.output().includes("SIGTERM: finishing in-flight requests");

/** The tests on one store: each starts the server again on the same data dir (its admin key). */
function shutdownSuite(name: string, storageArgs: () => string[]) {
  describe(`graceful shutdown on ${name}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "platform-shutdown-"));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it("lets requests in flight finish, ends watches, refuses new requests, then closes the store", async () => {
      const server = await startServerProcess(dir, undefined, storageArgs());
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const slow = new SlowCreate(server, "in-flight");
        const watch = watchTeams(server, agent);
        await Promise.all([slow.received(), watch.started]);
        server.child.kill("SIGTERM");
        await until("the server to begin stopping", stopping(server));

        // The watch ends as a response that is over, not a connection reset.
        assert.equal(await watch.ended, "end 200");
        // Its connection is still open: a request on it is refused, to be sent elsewhere.
        const refused = await getTeams(server, agent);
        assert.equal(refused.status, 429, refused.text);
        assert.equal(refused.headers["retry-after"], "1");
        assert.equal(refused.headers.connection, "close");
        const status = JSON.parse(refused.text);
        assert.equal(status.kind, "Status");
        assert.equal(status.reason, "TooManyRequests");
        assert.equal(status.details.retryAfterSeconds, 1);
        // No new connection is accepted.
        await assert.rejects(callAsAdmin(server, false, "GET", `${GROUP_PATH}/teams`), { code: "ECONNREFUSED" });

        // The create in flight completes, on a store still open, and its answer closes the connection.
        slow.finish();
        await slow.closed;
        assert.match(slow.finalStatus ?? "", /^HTTP\/1\.1 201 /, slow.response);
        assert.match(slow.response, /\r\nconnection: close\r\n/i);
        assert.deepEqual(await server.exited, { code: 0, signal: null }, server.output());
        assert.doesNotMatch(server.output(), /"level":50|storage is closed|shutdown did not finish/, server.output());
      } finally {
        agent.destroy();
        if (server.child.exitCode === null) server.child.kill("SIGKILL");
      }
    });

    it("fails /readyz with its shutdown check while /livez and /healthz answer 200, until it stops", async () => {
      const server = await startServerProcess(dir, undefined, storageArgs());
      const probes = ["/readyz?verbose", "/livez?verbose", "/healthz"];
      // One open connection for each probe, held by a watch that the stop ends.
      const agents = probes.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
      try {
        const before = await get(server, agents[0]!, "/readyz?verbose");
        assert.equal(before.status, 200);
        assert.match(before.text, /\[\+\]shutdown ok\nreadyz check passed/);
        const slow = new SlowCreate(server, "keeps-it-draining");
        const watches = agents.map((agent) => watchTeams(server, agent));
        await Promise.all([slow.received(), ...watches.map((w) => w.started)]);
        server.child.kill("SIGTERM");
        await until("the server to begin stopping", stopping(server));
        for (const w of watches) assert.equal(await w.ended, "end 200");

        const [ready, live, healthy] = await Promise.all(probes.map((path, i) => get(server, agents[i]!, path)));
        assert.equal(ready!.status, 500, ready!.text);
        assert.match(ready!.text, /\n\[-\]shutdown failed: reason withheld\nreadyz check failed\n$/);
        assert.match(ready!.text, /\[\+\](etcd|storage) ok/, "the store is still open");
        assert.equal(live!.status, 200, live!.text);
        assert.equal(live!.text, "[+]ping ok\nlivez check passed\n");
        assert.deepEqual([healthy!.status, healthy!.text], [200, "ok"]);
        for (const answer of [ready!, live!, healthy!]) assert.equal(answer.headers.connection, "close");

        slow.finish();
        await slow.closed;
        assert.match(slow.finalStatus ?? "", /^HTTP\/1\.1 201 /, slow.response);
        assert.deepEqual(await server.exited, { code: 0, signal: null }, server.output());
        assert.doesNotMatch(server.output(), /"level":50|storage is closed/, server.output());
      } finally {
        for (const agent of agents) agent.destroy();
        if (server.child.exitCode === null) server.child.kill("SIGKILL");
      }
    });

    it("cuts a request that outlives --shutdown-grace-period, then exits", async () => {
      const server = await startServerProcess(dir, undefined, [...storageArgs(), "--shutdown-grace-period", "1"]);
      try {
        // Never finished: only the grace period ends it.
        const slow = new SlowCreate(server, "never-finished");
        await slow.received();
        server.child.kill("SIGTERM");
        await slow.closed;
        assert.equal(slow.finalStatus, undefined, "the request was cut off without an answer");
        assert.deepEqual(await server.exited, { code: 0, signal: null }, server.output());
        assert.match(server.output(), /requests still in flight after 1 s were cut off/);
        assert.doesNotMatch(server.output(), /"level":50|storage is closed/, server.output());
      } finally {
        if (server.child.exitCode === null) server.child.kill("SIGKILL");
      }
    });
  });
}

shutdownSuite("SQLite", () => []);

describe("on etcd", () => {
  let etcd: EtcdCluster | undefined;
  before(async () => {
    etcd = await EtcdCluster.start(1);
  });
  after(async () => {
    await etcd?.stop();
  });
  shutdownSuite("etcd", () => ["--storage", etcd!.url]);
});

describe("--shutdown-delay", () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-shutdown-delay-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("goes on serving, new connections too, with /readyz failing; then stops as without it", async () => {
    const server = await startServerProcess(dir, undefined, ["--shutdown-delay", "5"]);
    const agent = new Agent({ keepAlive: false });
    try {
      server.child.kill("SIGTERM");
      await until("the delay to begin", () => server.output().includes("serving 5 s more (--shutdown-delay)"));
      // Each request on a new connection: the listener is still open.
      const ready = await get(server, agent, "/readyz?verbose");
      assert.equal(ready.status, 500, ready.text);
      assert.match(ready.text, /\n\[-\]shutdown failed: reason withheld\nreadyz check failed\n$/);
      const live = await get(server, agent, "/livez");
      assert.equal(live.status, 200, live.text);
      const teams = await getTeams(server, agent);
      assert.equal(teams.status, 200, teams.text);
      assert.equal(teams.headers["retry-after"], undefined, "answered, not refused");
      assert.doesNotMatch(server.output(), /finishing in-flight requests/, "the drain has not begun yet");
      // Then the stop proceeds as it does without a delay.
      await until("the drain to begin", stopping(server));
      assert.deepEqual(await server.exited, { code: 0, signal: null }, server.output());
      await assert.rejects(callAsAdmin(server, false, "GET", `${GROUP_PATH}/teams`), { code: "ECONNREFUSED" });
      assert.doesNotMatch(server.output(), /"level":50|storage is closed|shutdown did not finish/, server.output());
    } finally {
      agent.destroy();
      if (server.child.exitCode === null) server.child.kill("SIGKILL");
    }
  });
});
