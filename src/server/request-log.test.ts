import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { freePort } from "../testing/server-process.js";
import { GROUP_PATH } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

describe("logs of a running server", () => {
  let child: ChildProcess;
  let stdout = "";
  let stderr = "";
  let dir: string;
  let port: number;
  let adminKey: string;
  let ca: string;

  const call = (path: string, headers: Record<string, string> = {}, body?: unknown) =>
    new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        `https://127.0.0.1:${port}${path}`,
        {
          method: payload ? "POST" : "GET",
          ca,
          headers: {
            authorization: `Bearer ${adminKey}`,
            ...(payload ? { "content-type": "application/json" } : {}),
            ...headers,
          },
        },
        (res) => {
          let text = "";
          res.on("data", (c) => {
            text += c;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
          // A connection cut mid-answer ends in neither: say so, with the server's output, instead of hanging.
          res.on("aborted", () => reject(new Error(`answer cut off; server output:\n${stdout}${stderr}`)));
        },
      );
      req.on("error", reject);
      req.end(payload);
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "platform-logs-"));
    port = await freePort();
    child = spawn(
      process.execPath,
      ["bin/platform.js", "start", "--data-dir", dir, "--listen", `127.0.0.1:${port}`, "--log-level", "info"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child.stdout?.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr?.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    for (let i = 0; i < 1200 && !stdout.includes("platform is listening on"); i++) {
      if (child.exitCode !== null) throw new Error(`server exited:\n${stdout}${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    adminKey = readFileSync(join(dir, "admin-access-key"), "utf8").trim();
    ca = readFileSync(join(dir, "ca.crt"), "utf8");
  });
  after(async () => {
    child?.kill("SIGTERM");
    await new Promise((r) => child?.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes one JSON access line per request on stderr, with the request id, never the key", async () => {
    const created = await call(
      `${GROUP_PATH}/ownedaccesskeys`,
      { "x-request-id": "my-req-42" },
      {
        metadata: { name: "logged" },
        spec: { user: "admin" },
      },
    );
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers["x-request-id"], "my-req-42");
    const newKey = JSON.parse(created.text).spec.key as string;
    // Twice: the second is answered by the fast GET branch (the key is in the identity cache), which logs it alike.
    for (let i = 0; i < 2; i++) {
      const got = await call(`${GROUP_PATH}/users/admin`, { "x-request-id": "bad id with spaces" });
      assert.equal(got.status, 200);
      assert.ok(
        typeof got.headers["x-request-id"] === "string" && got.headers["x-request-id"] !== "bad id with spaces",
      );
    }
    // The fast GET branch did answer one, and it has its line below all the same.
    const metrics = await call("/metrics", { accept: "text/plain" });
    assert.match(metrics.text, /^platform_fast_path_requests_total\{path="get"\} [1-9]/m);
    await waitFor(
      "the three requests' access lines",
      async () => stderr,
      (logged) => logged.split("\n").filter((l) => l.includes('"path":"')).length >= 3,
    );
    const lines = stderr.split("\n").filter(Boolean);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>); // every line is JSON
    const access = records.filter((r) => r.msg === "request");
    const create = access.find((r) => r.requestId === "my-req-42");
    assert.ok(create, stderr);
    assert.equal(create.method, "POST");
    assert.equal(create.path, `${GROUP_PATH}/ownedaccesskeys`);
    assert.equal(create.user, "admin");
    assert.equal(create.code, 201);
    assert.equal(typeof create.durationMs, "number");
    assert.equal(typeof create.bytes, "number");
    assert.equal(create.level, 30);
    assert.equal(access.filter((r) => r.path === `${GROUP_PATH}/users/admin`).length, 2);
    assert.ok(!stderr.includes(newKey) && !stderr.includes(adminKey), "no key in the logs");
    // The banner is the only plain text, and on stdout.
    assert.ok(stdout.startsWith("platform is listening on"));
    assert.ok(!stdout.includes("{"));
  });
});
