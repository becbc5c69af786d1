import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { API_PREFIX } from "../api/object.js";
import { EtcdCluster } from "../testing/etcd-cluster.js";
import { GROUP_PATH, startTestServer, type TestResponse, type TestServer } from "../testing/test-server.js";

const KUBECTL = process.env.KUBECTL ?? "/usr/bin/kubectl";

function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(KUBECTL, ["--kubeconfig", kubeconfig, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/**
 * A read from a resourceVersion ahead of the store (a list, a watch, a GET of one object): a
 * short wait for it, the answer when the store reaches it meanwhile, else kube's 504 — on both stores.
 */
for (const store of ["SQLite", "etcd"] as const) {
  describe(`resourceVersion ahead of the store (${store})`, () => {
    let etcd: EtcdCluster | undefined;
    let server: TestServer;
    before(async () => {
      if (store === "etcd") etcd = await EtcdCluster.start(1);
      server = await startTestServer({ freshnessWaitMs: 1500, ...(etcd ? { storage: etcd.url } : {}) });
    });
    after(async () => {
      await server?.stop();
      await etcd?.stop();
    });

    const current = async () =>
      Number((await server.request("GET", `${GROUP_PATH}/teams`)).json.metadata.resourceVersion);
    const team = (name: string) => ({
      apiVersion: "management.platform/v1",
      kind: "Team",
      metadata: { name },
      spec: {},
    });
    const create = async (name: string) => {
      const res = await server.request("POST", `${GROUP_PATH}/teams`, { body: team(name) });
      assert.equal(res.status, 201, res.text);
      return res.json;
    };

    const lines = (text: string) =>
      text
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l));

    function assertTooLarge(res: TestResponse, asked: number | string): void {
      assert.equal(res.status, 504, res.text);
      assert.equal(res.headers["retry-after"], "1");
      assert.equal(res.json.kind, "Status");
      assert.equal(res.json.code, 504);
      assert.equal(res.json.reason, "Timeout");
      assert.match(res.json.message, new RegExp(`^Timeout: Too large resource version: ${asked}, current: \\d+$`));
      assert.deepEqual(res.json.details.causes, [
        { reason: "ResourceVersionTooLarge", message: "Too large resource version" },
      ]);
      assert.equal(res.json.details.retryAfterSeconds, 1);
    }

    it("answers a list, an exact list and a watch with 504 Too large resource version", async () => {
      const ahead = (await current()) + 1000;
      const [list, exact, watch] = await Promise.all([
        server.request("GET", `${GROUP_PATH}/teams?resourceVersion=${ahead}`),
        server.request("GET", `${GROUP_PATH}/teams?resourceVersion=${ahead}&resourceVersionMatch=Exact`),
        server.request("GET", `${GROUP_PATH}/teams?watch=1&resourceVersion=${ahead}&timeoutSeconds=5`),
      ]);
      assertTooLarge(list, ahead);
      assertTooLarge(exact, ahead);
      assertTooLarge(watch, ahead);
    });

    it("serves a watch whose resourceVersion the store reaches while it waits", async () => {
      const next = (await current()) + 1;
      const watching = server.request(
        "GET",
        `${GROUP_PATH}/teams?watch=true&resourceVersion=${next - 1}&timeoutSeconds=2`,
      );
      const early = server.request("GET", `${GROUP_PATH}/teams?watch=true&resourceVersion=${next}&timeoutSeconds=2`);
      await new Promise((r) => setTimeout(r, 200));
      await create("arrives-late");
      for (const res of [await watching, await early]) {
        assert.equal(res.status, 200, res.text);
        const events = lines(res.text);
        // The early watch starts at the new revision: it sees nothing older, and nothing fails.
        for (const e of events) assert.notEqual(e.type, "ERROR", res.text);
      }
      const seen = lines((await watching).text);
      assert.deepEqual(
        seen.map((e) => [e.type, e.object.metadata.name]),
        [["ADDED", "arrives-late"]],
      );
    });

    it("answers a GET of one object, as a Table, or of a missing one with 504", async () => {
      await create("get-ahead");
      const ahead = (await current()) + 1000;
      const [plain, table, missing] = await Promise.all([
        server.request("GET", `${GROUP_PATH}/teams/get-ahead?resourceVersion=${ahead}`),
        server.request("GET", `${GROUP_PATH}/teams/get-ahead?resourceVersion=${ahead}`, {
          headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
        }),
        // kube-apiserver waits before it looks: the missing object is a 504 too, not a 404.
        server.request("GET", `${GROUP_PATH}/teams/no-such-team?resourceVersion=${ahead}`),
      ]);
      for (const res of [plain, table, missing]) assertTooLarge(res, ahead);
    });

    it("answers a GET with resourceVersion unset, 0 or reached at once, and refuses one that is not a number", async () => {
      const made = await create("get-now");
      const rv = made.metadata.resourceVersion;
      for (const query of ["", "?resourceVersion=", "?resourceVersion=0", `?resourceVersion=${rv}`]) {
        const res = await server.request("GET", `${GROUP_PATH}/teams/get-now${query}`);
        assert.equal(res.status, 200, `${query}: ${res.text}`);
        assert.equal(res.json.metadata.resourceVersion, rv, query);
      }
      const bad = await server.request("GET", `${GROUP_PATH}/teams/get-now?resourceVersion=abc`);
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.json.reason, "BadRequest");
      assert.equal(bad.json.message, 'invalid resourceVersion "abc"');
      // The same answer the list gives.
      const badList = await server.request("GET", `${GROUP_PATH}/teams?resourceVersion=abc`);
      assert.equal(badList.status, 400, badList.text);
      assert.equal(badList.json.message, bad.json.message);
    });

    it("quotes a resourceVersion beyond 2^53 - 1 in exact digits, refuses one beyond a uint64, and never matches it by rounding", async () => {
      const made = await create("huge-rv");
      // 2^53 + 1 (a double rounds it to 2^53), 10^19 + 1, the largest uint64.
      for (const huge of ["9007199254740993", "10000000000000000001", "18446744073709551615"]) {
        const [get, list, exact, watch] = await Promise.all([
          server.request("GET", `${GROUP_PATH}/teams/huge-rv?resourceVersion=${huge}`),
          server.request("GET", `${GROUP_PATH}/teams?resourceVersion=${huge}`),
          server.request("GET", `${GROUP_PATH}/teams?resourceVersion=${huge}&resourceVersionMatch=Exact`),
          server.request("GET", `${GROUP_PATH}/teams?watch=1&resourceVersion=${huge}&timeoutSeconds=5`),
        ]);
        for (const res of [get, list, exact, watch]) assertTooLarge(res, huge);
        // An update or a patch from it is a conflict, as against any other revision the object is not at.
        const put = await server.request("PUT", `${GROUP_PATH}/teams/huge-rv`, {
          body: { ...made, metadata: { ...made.metadata, resourceVersion: huge } },
        });
        const patch = await server.request("PATCH", `${GROUP_PATH}/teams/huge-rv`, {
          body: { metadata: { resourceVersion: huge }, spec: { description: "conditional" } },
          contentType: "application/merge-patch+json",
        });
        for (const res of [put, patch]) {
          assert.equal(res.status, 409, res.text);
          assert.equal(res.json.reason, "Conflict");
        }
      }
      // Leading zeros are the same uint64, quoted as kube-apiserver prints it.
      assertTooLarge(
        await server.request("GET", `${GROUP_PATH}/teams/huge-rv?resourceVersion=009007199254740993`),
        "9007199254740993",
      );
      // 2^64 and 10^21 (a double prints it 1e+21) are not uint64s: kube-apiserver's parse refuses
      // them, a 400 here on every verb, quoting the digits sent.
      for (const beyond of ["18446744073709551616", "1000000000000000000000"]) {
        const refused = await Promise.all([
          server.request("GET", `${GROUP_PATH}/teams/huge-rv?resourceVersion=${beyond}`),
          server.request("GET", `${GROUP_PATH}/teams?resourceVersion=${beyond}`),
          server.request("GET", `${GROUP_PATH}/teams?watch=1&resourceVersion=${beyond}&timeoutSeconds=5`),
          server.request("PUT", `${GROUP_PATH}/teams/huge-rv`, {
            body: { ...made, metadata: { ...made.metadata, resourceVersion: beyond } },
          }),
        ]);
        for (const res of refused) {
          assert.equal(res.status, 400, res.text);
          assert.equal(res.json.reason, "BadRequest");
          assert.equal(res.json.message, `invalid resourceVersion "${beyond}"`);
        }
      }
      // A megabyte of digits in a body: refused as no uint64 by its length (BigInt's parse of it
      // would take seconds), and not echoed back whole.
      const longDigits = "9".repeat(1_000_000);
      const long = await server.request("PUT", `${GROUP_PATH}/teams/huge-rv`, {
        body: { ...made, metadata: { ...made.metadata, resourceVersion: longDigits } },
      });
      assert.equal(long.status, 400, long.text.slice(0, 300));
      assert.equal(long.json.message, `invalid resourceVersion "${"9".repeat(40)}…"`);
      // A continue token's revision beyond 2^53 - 1 is not one this server wrote.
      const token = Buffer.from(
        '{"v":"meta.k8s.io/v1","rv":9007199254740993,"start":"/registry/teams/huge-rv"}',
      ).toString("base64url");
      const cont = await server.request("GET", `${GROUP_PATH}/teams?limit=1&continue=${token}`);
      assert.equal(cont.status, 400, cont.text);
      assert.equal(cont.json.message, "invalid continue token: the continue parameter is not valid");
      // Nothing was written meanwhile.
      const after = await server.request("GET", `${GROUP_PATH}/teams/huge-rv`);
      assert.equal(after.json.metadata.resourceVersion, made.metadata.resourceVersion);
    });

    it("serves a GET whose resourceVersion the store reaches while it waits: the object written there", async () => {
      await create("changes-late");
      const next = (await current()) + 1;
      const order: string[] = [];
      // One object that changes at `next`, one that is only created there: without the wait, the
      // first would be answered as it was, the second 404.
      const changed = server
        .request("GET", `${GROUP_PATH}/teams/changes-late?resourceVersion=${next}`)
        .finally(() => order.push("changed answered"));
      const created = server
        .request("GET", `${GROUP_PATH}/teams/arrives-at-rv?resourceVersion=${next + 1}`)
        .finally(() => order.push("created answered"));
      await new Promise((r) => setTimeout(r, 200));
      order.push("writes sent");
      const patched = await server.request("PATCH", `${GROUP_PATH}/teams/changes-late`, {
        body: { spec: { description: "written at the awaited revision" } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.json.metadata.resourceVersion, String(next));
      const made = await create("arrives-at-rv");
      assert.equal(made.metadata.resourceVersion, String(next + 1));

      const [got, gotCreated] = await Promise.all([changed, created]);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json.metadata.resourceVersion, String(next));
      assert.equal(got.json.spec.description, "written at the awaited revision");
      assert.equal(gotCreated.status, 200, gotCreated.text);
      assert.equal(gotCreated.json.metadata.uid, made.metadata.uid);
      assert.equal(order[0], "writes sent", order.join(", "));
    });

    it("kubectl get --raw waits for the object written at its resourceVersion", async () => {
      const next = (await current()) + 1;
      const path = `${API_PREFIX}/apis/management.platform/v1/teams/kubectl-late?resourceVersion=${next}`;
      const fetching = kubectl(server.kubeconfig(), ["get", "--raw", path]);
      await new Promise((r) => setTimeout(r, 500));
      const made = await create("kubectl-late");
      const res = await fetching;
      assert.equal(res.code, 0, res.stderr);
      const got = JSON.parse(res.stdout);
      assert.equal(got.metadata.uid, made.metadata.uid);
      assert.equal(got.metadata.resourceVersion, String(next));
    });

    // Last: a project's controllers write in the background, which the revisions counted above would not allow.
    it("answers a GET of a status subresource with 504 as well", async () => {
      const made = await server.request("POST", `${GROUP_PATH}/projects`, {
        body: { apiVersion: "management.platform/v1", kind: "Project", metadata: { name: "status-ahead" }, spec: {} },
      });
      assert.equal(made.status, 201, made.text);
      const now = await server.request("GET", `${GROUP_PATH}/projects/status-ahead/status?resourceVersion=0`);
      assert.equal(now.status, 200, now.text);
      const ahead = (await current()) + 1000;
      assertTooLarge(
        await server.request("GET", `${GROUP_PATH}/projects/status-ahead/status?resourceVersion=${ahead}`),
        ahead,
      );
    });
  });
}

/**
 * kubectl on the 504: client-go retries it (Retry-After: 1, up to 10 times, as against
 * kube-apiserver), then reports kube's message. A short wait keeps those retries short.
 */
describe("resourceVersion ahead of the store, through kubectl", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ freshnessWaitMs: 50 });
  });
  after(() => server?.stop());

  it("kubectl get --raw of an object at a resourceVersion never reached fails with kube's Timeout", async () => {
    const made = await server.request("POST", `${GROUP_PATH}/teams`, {
      body: { apiVersion: "management.platform/v1", kind: "Team", metadata: { name: "never" }, spec: {} },
    });
    assert.equal(made.status, 201, made.text);
    const ahead = Number(made.json.metadata.resourceVersion) + 1000;
    const path = `${API_PREFIX}/apis/management.platform/v1/teams/never?resourceVersion=${ahead}`;
    const res = await kubectl(server.kubeconfig(), ["get", "--raw", path]);
    assert.equal(res.code, 1, res.stdout);
    assert.match(
      res.stderr,
      new RegExp(`^Error from server \\(Timeout\\): Timeout: Too large resource version: ${ahead}, current: \\d+\\n$`),
    );
    const bad = await kubectl(server.kubeconfig(), ["get", "--raw", path.replace(String(ahead), "abc")]);
    assert.equal(bad.code, 1, bad.stdout);
    assert.equal(bad.stderr, 'Error from server (BadRequest): invalid resourceVersion "abc"\n');
  });
});
