import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * Debian's python3-kubernetes (the official Python client) against a real server. The script lives
 * in src/e2e/testdata (tsc copies no .py to dist), so it is found from the compiled file's place.
 */
const SCRIPT = fileURLToPath(new URL("../../src/e2e/testdata/python_client.py", import.meta.url));
/** Debian's interpreter, which has python3-kubernetes (a pyenv python3 on PATH may not). */
const PYTHON = process.env.PLATFORM_TEST_PYTHON ?? "/usr/bin/python3";

const EXPECTED = [
  "custom-objects create/get",
  "custom-objects label and field selectors",
  "custom-objects pagination",
  "custom-objects patch/replace/delete",
  "ApiException status codes",
  "watch.Watch",
  "dynamic discovery",
  "dynamic CRUD",
  "dynamic server-side apply force=True",
  "dynamic watch",
  "dynamic ApiException",
];

function runPython(kubeconfig: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      PYTHON,
      [SCRIPT],
      { env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("python3-kubernetes", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it("runs CustomObjectsApi, watch.Watch and the dynamic client against the server", async () => {
    const { code, stdout, stderr } = await runPython(server.kubeconfig());
    const passed = stdout
      .split("\n")
      .filter((l) => l.startsWith("PASS "))
      .map((l) => l.slice(5));
    assert.deepEqual(passed, EXPECTED, `python said:\n${stdout}\n${stderr}`);
    assert.equal(code, 0, stderr);
  });
});
