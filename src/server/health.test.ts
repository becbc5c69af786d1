import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Fastify from "fastify";
import { type HealthCheck, isHealthProbe, registerHealthRoutes } from "./health.js";

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
  registerHealthRoutes(app, storage, () => state.stopping);
  await app.ready();
  const get = async (url: string) => {
    const res = await app.inject({ method: "GET", url });
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
      assert.deepEqual(await get("/readyz?verbose"), {
        status: 503,
        text: "[+]ping ok\n[+]storage ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n",
      });
      assert.equal((await get("/readyz")).status, 503);
      assert.deepEqual(await get("/readyz/shutdown"), {
        status: 503,
        text: "[-]shutdown failed: reason withheld\nreadyz check failed\n",
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
        status: 503,
        text: "[+]ping ok\n[-]storage failed: reason withheld\n[-]shutdown failed: reason withheld\nreadyz check failed\n",
      });
      assert.equal((await get("/healthz")).status, 503);
      assert.equal((await get("/livez")).status, 200);
    } finally {
      await app.close();
    }
  });
});

describe("isHealthProbe", () => {
  it("knows the health endpoints and their checks, GET or HEAD, and nothing else", () => {
    for (const url of ["/readyz", "/readyz?verbose", "/readyz/shutdown", "/livez", "/livez/ping", "/healthz?verbose"]) {
      assert.equal(isHealthProbe("GET", url), true, url);
    }
    assert.equal(isHealthProbe("HEAD", "/livez"), true);
    for (const url of ["/readyzz", "/version", "/api/readyz", "/kubernetes/management/readyz", "readyz", "/"]) {
      assert.equal(isHealthProbe("GET", url), false, url);
    }
    assert.equal(isHealthProbe("POST", "/readyz"), false);
    assert.equal(isHealthProbe("GET", undefined), false);
  });
});
