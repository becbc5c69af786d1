import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Fastify from "fastify";
import { type HealthCheck, isHealthProbe, registerHealthRoutes, storageCheck } from "./health.js";

/**
 * The health endpoints on a bare fastify app: the `shutdown` check of /readyz (kube-apiserver's),
 * which fails once the server is stopping while /livez and /healthz keep answering 200.
 */
async function healthApp() {
  const state = { stopping: false, storageUp: true };
  const storage: HealthCheck = {
    name: "storage",
    check: async () => {
      if (!state.storageUp) throw new Error("down");
    },
  };
  const app = Fastify({ logger: false });
  registerHealthRoutes(
    app,
    storage,
    () => state.stopping,
    async () => {},
  );
  await app.ready();
  const get = async (url: string) => {
    const res = await app.inject({ method: "GET", url });
    if (res.statusCode !== 404) {
      assert.equal(res.headers["content-type"], "text/plain; charset=utf-8", url);
      assert.equal(res.headers["x-content-type-options"], "nosniff", url);
    }
    return { status: res.statusCode, text: res.body };
  };
  return { app, state, get };
}

describe("health endpoints", () => {
  it("lists the shutdown check last in /readyz, passing while the server runs", async () => {
    const { app, get } = await healthApp();
    try {
      assert.deepEqual(await get("/readyz"), { status: 200, text: "ok" });
      assert.deepEqual(await get("/readyz?verbose"), {
        status: 200,
        text: "[+]ping ok\n[+]storage ok\n[+]shutdown ok\nreadyz check passed\n",
      });
      assert.deepEqual(await get("/readyz/shutdown"), { status: 200, text: "ok" });
      // Not a liveness or health check: a draining server is not to be restarted.
      assert.equal((await get("/livez?verbose")).text, "[+]ping ok\nlivez check passed\n");
      assert.equal((await get("/healthz?verbose")).text, "[+]ping ok\n[+]storage ok\nhealthz check passed\n");
      assert.equal((await get("/livez/shutdown")).status, 404);
    } finally {
      await app.close();
    }
  });

  it("fails /readyz with the shutdown check once stopping; /livez and /healthz stay 200", async () => {
    const { app, state, get } = await healthApp();
    try {
      state.stopping = true;
      // Always verbose on failure, with kube-apiserver's 500.
      for (const url of ["/readyz?verbose", "/readyz"]) {
        assert.deepEqual(await get(url), {
          status: 500,
          text: "[+]ping ok\n[+]storage ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n",
        });
      }
      assert.deepEqual(await get("/readyz/shutdown"), {
        status: 500,
        text: "internal server error: process is shutting down\n",
      });
      assert.deepEqual(await get("/readyz/storage"), { status: 200, text: "ok" });
      assert.deepEqual(await get("/livez"), { status: 200, text: "ok" });
      assert.deepEqual(await get("/healthz"), { status: 200, text: "ok" });
      assert.equal((await get("/healthz?verbose")).text, "[+]ping ok\n[+]storage ok\nhealthz check passed\n");
    } finally {
      await app.close();
    }
  });

  it("lists every failing check, storage and shutdown alike", async () => {
    const { app, state, get } = await healthApp();
    try {
      state.stopping = true;
      state.storageUp = false;
      assert.deepEqual(await get("/readyz?verbose"), {
        status: 500,
        text: "[+]ping ok\n[-]storage failed: reason withheld\n[-]shutdown failed: reason withheld\nreadyz check failed\n",
      });
      assert.equal((await get("/healthz")).status, 500);
      assert.deepEqual(await get("/healthz/storage"), { status: 500, text: "internal server error: down\n" });
      assert.equal((await get("/livez")).status, 200);
    } finally {
      await app.close();
    }
  });
});

describe("?exclude", () => {
  it("skips the checks named, passing them as excluded, and warns of names that are no check", async () => {
    const { app, state, get } = await healthApp();
    try {
      state.stopping = true;
      assert.deepEqual(await get("/readyz?exclude=shutdown"), { status: 200, text: "ok" });
      assert.deepEqual(await get("/readyz?exclude=shutdown&verbose"), {
        status: 200,
        text: "[+]ping ok\n[+]storage ok\n[+]shutdown excluded: ok\nreadyz check passed\n",
      });
      state.storageUp = false;
      assert.deepEqual(await get("/readyz?exclude=shutdown&exclude=storage&exclude=zz&exclude=etcd"), {
        status: 200,
        text: "ok",
      });
      assert.deepEqual(await get("/readyz?exclude=shutdown&exclude=zz&exclude=etcd"), {
        status: 500,
        text:
          "[+]ping ok\n[-]storage failed: reason withheld\n[+]shutdown excluded: ok\n" +
          'warn: some health checks cannot be excluded: no matches for "etcd","zz"\nreadyz check failed\n',
      });
      // shutdown is no /healthz check: excluding it there excludes nothing.
      assert.equal((await get("/healthz?exclude=shutdown&verbose")).status, 500);
    } finally {
      await app.close();
    }
  });
});

describe("storageCheck", () => {
  it("fails with a message naming the store, the store's own error kept for the log", async () => {
    const check = storageCheck(
      { currentRevision: () => Promise.reject(new Error("connect ECONNREFUSED 10.0.0.7:2379")) },
      true,
    );
    assert.equal(check.name, "etcd");
    await assert.rejects(check.check(), (err: Error) => {
      assert.equal(err.message, "etcd did not answer");
      assert.equal((err.cause as Error).message, "connect ECONNREFUSED 10.0.0.7:2379");
      return true;
    });
    const up = storageCheck({ currentRevision: async () => 7 }, false);
    assert.equal(up.name, "storage");
    await up.check();
  });
});

describe("any method", () => {
  const methods = ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

  it("answers every method as GET, as kube-apiserver's mux does; a body is ignored", async () => {
    const { app, state } = await healthApp();
    try {
      for (const method of methods) {
        for (const url of ["/readyz", "/livez/ping", "/healthz?verbose"]) {
          const get = await app.inject({ method: "GET", url });
          const res = await app.inject({
            method,
            url,
            headers: { "content-type": "application/json" },
            payload: '{"spec":{"stopping":true}}',
          });
          assert.equal(res.statusCode, get.statusCode, `${method} ${url}`);
          assert.equal(res.body, get.body, `${method} ${url}`);
          assert.equal(res.headers["content-type"], "text/plain; charset=utf-8", `${method} ${url}`);
        }
      }
      assert.equal((await app.inject({ method: "POST", url: "/readyz" })).body, "ok");
      // A failing check reads the same through any method, and none of them changed anything.
      state.stopping = true;
      const failed = await app.inject({ method: "POST", url: "/readyz/shutdown" });
      assert.deepEqual([failed.statusCode, failed.body], [500, "internal server error: process is shutting down\n"]);
      state.stopping = false;
      assert.equal((await app.inject({ method: "DELETE", url: "/readyz?verbose" })).statusCode, 200);
      // Only the endpoints and their checks: no other path answers for them.
      assert.equal((await app.inject({ method: "POST", url: "/readyz/nothing" })).statusCode, 404);
      assert.equal((await app.inject({ method: "POST", url: "/livez/storage" })).statusCode, 404);
    } finally {
      await app.close();
    }
  });

  it("answers HEAD with the status and headers of GET, and no body", async () => {
    const { app, state } = await healthApp();
    try {
      const ok = await app.inject({ method: "HEAD", url: "/readyz" });
      assert.deepEqual([ok.statusCode, ok.body], [200, ""]);
      assert.equal(ok.headers["content-type"], "text/plain; charset=utf-8");
      state.storageUp = false;
      const failed = await app.inject({ method: "HEAD", url: "/healthz/storage" });
      assert.deepEqual([failed.statusCode, failed.body], [500, ""]);
    } finally {
      await app.close();
    }
  });
});

describe("isHealthProbe", () => {
  it("knows the health endpoints and their checks, and nothing else", () => {
    for (const url of ["/readyz", "/readyz?verbose", "/readyz/shutdown", "/livez", "/livez/ping", "/healthz?verbose"]) {
      assert.equal(isHealthProbe(url), true, url);
    }
    for (const url of ["/readyzz", "/version", "/api/readyz", "/kubernetes/management/readyz", "readyz", "/"]) {
      assert.equal(isHealthProbe(url), false, url);
    }
    assert.equal(isHealthProbe(undefined), false);
  });
});
