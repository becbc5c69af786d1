import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { request } from "node:https";
import { after, before, describe, it } from "node:test";
import { parse as parseYaml } from "yaml";
import { suiteServer } from "../testing/suite-server.js";
import { GROUP_PATH, startTestServer, type TestResponse, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

/**
 * A value in the store that is not an object this server wrote (written there by hand, or
 * damaged): the paths that send stored bytes without parsing them (GET, LIST, a watch that
 * selects nothing) must not pass it on as it is. As kube-apiserver does, a read answers an
 * InternalError Status (a LIST kube's StorageReadError) and a watch ends with an ERROR event; the
 * decoding paths answer the same.
 */
describe("a corrupt stored object never reaches a client as it is", () => {
  let server: TestServer;
  // Cut short: it starts as an object and holds a top-level metadata, but it is not JSON.
  const truncated =
    '{"apiVersion":"management.platform/v1","kind":"Team","metadata":{"name":"NAME"},"spec":{"users":["a"';

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  /** Writes `value` under the key of Team `name`, below the registry. */
  const writeRaw = (name: string, value: string) =>
    server.storage.create(server.registry.store("teams").key(undefined, name), Buffer.from(value));
  const removeRaw = (name: string) => server.storage.delete(server.registry.store("teams").key(undefined, name));

  const assertInternalError = (res: { status: number; json: { kind?: string; reason?: string } }, text: string) => {
    assert.equal(res.status, 500, text);
    assert.equal(res.json?.kind, "Status", text);
    assert.equal(res.json?.reason, "InternalError", text);
  };

  it("GET answers 500 InternalError, on the fast path and on the normal one", async () => {
    await writeRaw("bad-get", truncated.replace("NAME", "bad-get"));
    // Twice: the first request authenticates the key, the next may be answered from memory.
    for (let i = 0; i < 3; i++) {
      const res = await server.request("GET", `${GROUP_PATH}/teams/bad-get`);
      assertInternalError(res, res.text);
    }
    const yaml = await server.request("GET", `${GROUP_PATH}/teams/bad-get`, {
      headers: { accept: "application/yaml" },
    });
    assert.equal(yaml.status, 500, yaml.text);
    await removeRaw("bad-get");
  });

  it("a value that is JSON but not an object is refused as well", async () => {
    await writeRaw("bad-array", '["metadata",{"metadata":{"name":"bad-array"}}]');
    const res = await server.request("GET", `${GROUP_PATH}/teams/bad-array`);
    assertInternalError(res, res.text);
    await removeRaw("bad-array");
  });

  it("LIST answers 500 StorageReadError rather than a list holding the bytes", async () => {
    await writeRaw("bad-list", truncated.replace("NAME", "bad-list"));
    const res = await server.request("GET", `${GROUP_PATH}/teams`);
    assert.equal(res.status, 500, res.text);
    assert.equal(res.json?.reason, "StorageReadError", res.text);
    assert.ok(!res.text.includes('"users":["a"'), "nothing of the corrupt bytes was sent");
    await removeRaw("bad-list");
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams`)).status, 200, "listed again once it is gone");
  });

  for (const [how, query] of [
    ["a watch that selects nothing (stored bytes)", ""],
    ["a watch with a label selector (decoding)", "&labelSelector=tier%21%3Dnone"],
  ] as const) {
    it(`${how} ends with an ERROR event`, async () => {
      const name = `bad-watch-${query ? "selected" : "plain"}`;
      const list = await server.request("GET", `${GROUP_PATH}/teams`);
      assert.equal(list.status, 200, list.text);
      const rv = list.json.metadata.resourceVersion as string;
      const lines = watchLines(server, `${GROUP_PATH}/teams?watch=true&resourceVersion=${rv}${query}`);
      await server.request("POST", `${GROUP_PATH}/teams`, { body: { metadata: { name: `${name}-ok` }, spec: {} } });
      await writeRaw(name, truncated.replace("NAME", name));
      const got = await lines;
      assert.equal(got.length, 2, got.join("\n"));
      const events = got.map((l) => JSON.parse(l));
      assert.equal(events[0].type, "ADDED");
      assert.equal(events[0].object.metadata.name, `${name}-ok`);
      assert.equal(events[1].type, "ERROR");
      assert.equal(events[1].object.kind, "Status");
      assert.equal(events[1].object.code, 500);
      assert.equal(events[1].object.reason, "InternalError");
      assert.ok(!got.join("\n").includes('"users":["a"'), "nothing of the corrupt bytes was sent");
      await removeRaw(name);
    });
  }
});

/** The lines of a watch until the server ends it (raw: a line that is not JSON is kept as is). */
function watchLines(server: TestServer, path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, server.url),
      { headers: { authorization: `Bearer ${server.adminKey}` }, ca: server.caPem },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve(text.split("\n").filter((l) => l.trim() !== "")));
        res.on("error", reject);
      },
    );
    // Bounded: a watch the server never ends would hold the test (the server's own timeout ends it).
    req.setTimeout(20_000, () => req.destroy(new Error("the watch was not ended by the server")));
    req.on("error", reject);
    req.end();
  });
}

/** What the damaged values below hold, so a test can tell they were never sent. */
const MARK = "never-sent-5d2b";

/**
 * Values damaged in ways that keep the shape the stored-bytes fast paths once looked at (framed
 * as an object, with a top-level metadata), each the bytes of Team `name`.
 */
function damagedTeams(name: string): Array<[string, Buffer]> {
  const head = `{"apiVersion":"management.platform/v1","kind":"Team","metadata":{"name":"${name}"}`;
  return [
    ["not JSON inside its braces", Buffer.from(`${head},"spec":{"users":["${MARK}"],,}}`)],
    ["cut short and closed again", Buffer.from(`${head},"spec":{"users":["${MARK}"}`)],
    [
      "not valid UTF-8",
      Buffer.concat([Buffer.from(`${head},"spec":{"users":["${MARK}`), Buffer.from([0xff, 0xfe]), Buffer.from('"]}}')]),
    ],
    [
      "JSON without metadata.name",
      Buffer.from(
        `{"apiVersion":"management.platform/v1","kind":"Team","metadata":{"labels":{"m":"${MARK}"}},"spec":{}}`,
      ),
    ],
    [
      "JSON naming another object",
      Buffer.from(`${head.replace(`"${name}"`, '"someone-else"')},"spec":{"users":["${MARK}"]}}`),
    ],
    ["JSON of another kind", Buffer.from(`${head.replace('"Team"', '"Secret"')},"data":{"m":"${MARK}"}}`)],
  ];
}

/** A server holding one decodable Team, "fine", beside the values a test damages. */
async function serverWithAFineTeam(): Promise<TestServer> {
  const server = await startTestServer();
  const ok = await server.request("POST", `${GROUP_PATH}/teams`, { body: { metadata: { name: "fine" }, spec: {} } });
  assert.equal(ok.status, 201, ok.text);
  return server;
}

/**
 * The fast paths of a kind shown as stored (teams) — GET from memory, repeated so the hot path
 * answers; LIST whole and in pages; kubectl; a watch that selects nothing — on values damaged
 * inside their braces: none sends the bytes, each answers as the decoding path does.
 */
describe("the stored-bytes fast paths check a stored value before sending it (SQLite, cached)", () => {
  let server: TestServer;
  before(async () => {
    server = await serverWithAFineTeam();
  });
  after(() => server.stop());

  const key = (name: string) => server.registry.store("teams").key(undefined, name);

  for (const [how, value] of damagedTeams("damaged")) {
    it(`${how}: GET, LIST, kubectl and watch refuse it`, async () => {
      await server.storage.create(key("damaged"), value);
      try {
        await assertRefusedEverywhere(server, "damaged");
      } finally {
        await server.storage.delete(key("damaged"));
      }
      assert.equal((await server.request("GET", `${GROUP_PATH}/teams`)).status, 200, "listed again once it is gone");
    });
  }

  it("a damaged new version of an object read before is refused too (the check is per version)", async () => {
    const r = await server.request("POST", `${GROUP_PATH}/teams`, { body: { metadata: { name: "later" }, spec: {} } });
    assert.equal(r.status, 201, r.text);
    for (let i = 0; i < 3; i++) assert.equal((await server.request("GET", `${GROUP_PATH}/teams/later`)).status, 200);
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams`)).status, 200);
    const [, value] = damagedTeams("later")[0]!;
    await server.storage.update(key("later"), value, Number(r.json.metadata.resourceVersion));
    for (let i = 0; i < 3; i++) assertCorruptGet(await server.request("GET", `${GROUP_PATH}/teams/later`), "later");
    await server.storage.delete(key("later"));
  });
});

describe("the stored-bytes fast paths check a stored value before sending it (etcd, put below the API)", () => {
  const suite = suiteServer("etcd");

  it("GET (repeated), LIST, kubectl and watch refuse a value damaged inside its braces", async () => {
    const { server, etcd } = suite;
    const ok = await server.request("POST", `${GROUP_PATH}/teams`, { body: { metadata: { name: "fine" }, spec: {} } });
    assert.equal(ok.status, 201, ok.text);
    const b64 = (b: Buffer | string) => Buffer.from(b).toString("base64");
    const etcdKey = b64("/registry/management.platform/teams/damaged");
    for (const [how, value] of damagedTeams("damaged")) {
      await etcd.post(0, "/v3/kv/put", { key: etcdKey, value: b64(value) });
      // The server learns of the put through its watch of etcd: bounded wait for the GET to say so.
      await waitFor(
        `${how}: the GET to answer the damaged object`,
        () => server.request("GET", `${GROUP_PATH}/teams/damaged`),
        (got) => {
          assert.ok(!got.text.includes(MARK), `${how}: the stored bytes are never sent`);
          return got.status === 500;
        },
      );
      await assertRefusedEverywhere(server, "damaged", how);
    }
    await etcd.post(0, "/v3/kv/deleterange", { key: etcdKey });
  });
});

function assertCorruptGet(res: TestResponse, name: string, how = ""): void {
  assert.equal(res.status, 500, `${how}: ${res.text}`);
  assert.equal(res.json?.reason, "InternalError", res.text);
  assert.match(res.json.message, /StorageError: corrupt object/, res.text);
  assert.ok(res.json.message.includes(`"${name}"`), res.text);
  assert.ok(!res.text.includes(MARK), `${how}: the stored bytes are never sent`);
}

/** Team `name` (damaged, in the store now) is refused by every read, on the fast paths and the decoding ones. */
async function assertRefusedEverywhere(server: TestServer, name: string, how = ""): Promise<void> {
  // Repeated: the first request authenticates the key, the next ones are answered from memory.
  for (let i = 0; i < 3; i++) assertCorruptGet(await server.request("GET", `${GROUP_PATH}/teams/${name}`), name, how);
  const yaml = await server.request("GET", `${GROUP_PATH}/teams/${name}`, { headers: { accept: "application/yaml" } });
  assert.equal(yaml.status, 500, `${how}: ${yaml.text}`);
  for (let i = 0; i < 2; i++) {
    const list = await server.request("GET", `${GROUP_PATH}/teams`);
    assert.equal(list.status, 500, `${how}: ${list.text}`);
    assert.equal(list.json?.reason, "StorageReadError", list.text);
    assert.ok(!list.text.includes(MARK), `${how}: the stored bytes are never sent in a list`);
  }
  // In pages of one: the page holding it is refused, no page carries its bytes.
  let cont = "";
  let refused = 0;
  for (let pages = 0; pages < 10; pages++) {
    const page = await server.request("GET", `${GROUP_PATH}/teams?limit=1${cont ? `&continue=${cont}` : ""}`);
    assert.ok(!page.text.includes(MARK), `${how}: the stored bytes are never sent in a page`);
    if (page.status !== 200) {
      assert.equal(page.json?.reason, "StorageReadError", page.text);
      refused++;
      break;
    }
    cont = page.json.metadata.continue ?? "";
    if (!cont) break;
  }
  assert.equal(refused, 1, `${how}: the page holding it is refused`);
  for (const args of [
    ["get", "teams.management.platform"],
    ["get", "teams.management.platform", "-o", "json"],
    ["get", "teams.management.platform", name, "-o", "json"],
  ]) {
    const out = await kubectl(server, args);
    assert.notEqual(out.code, 0, `${how}: kubectl ${args.join(" ")}: ${out.stdout}`);
    assert.ok(
      !out.stdout.includes(MARK) && !out.stderr.includes(MARK),
      `${how}: kubectl ${args.join(" ")} shows nothing of it`,
    );
  }
  // A watch that selects nothing (stored-bytes events) meeting a new version of it ends with ERROR.
  const store = server.registry.store("teams");
  const current = await server.storage.get(store.key(undefined, name));
  const lines = watchLines(server, `${GROUP_PATH}/teams?watch=true&resourceVersion=${current!.modRevision}`);
  await server.storage.update(store.key(undefined, name), current!.value, current!.modRevision);
  const got = await lines;
  assert.ok(!got.join("\n").includes(MARK), `${how}: the stored bytes are never sent in a watch`);
  assert.equal(got.length, 1, got.join("\n"));
  assert.equal(JSON.parse(got[0]!).type, "ERROR", got[0]);
}

function kubectl(server: TestServer, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.env.KUBECTL ?? "/usr/bin/kubectl",
      ["--kubeconfig", server.kubeconfig(), ...args],
      { env: { PATH: process.env.PATH, HOME: server.dataDir }, timeout: 20_000 },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

/**
 * Stored values of Team `name` that the decoding path refuses or answers differently from the
 * bytes: the fast paths must answer each exactly as it does.
 */
function oddTeams(name: string): Array<[string, Buffer]> {
  const api = '"apiVersion":"management.platform/v1","kind":"Team"';
  return [
    ...damagedTeams(name),
    ["a JSON array", Buffer.from(`[{${api},"metadata":{"name":"${name}"}}]`)],
    ["metadata that is a string", Buffer.from(`{${api},"metadata":"${name}"}`)],
    ["an empty object", Buffer.from("{}")],
    ["as this server stores it", Buffer.from(`{${api},"metadata":{"name":"${name}"},"spec":{"users":["a"]}}`)],
    ["with spaces", Buffer.from(`{ ${api}, "metadata" : { "name" : "${name}" }, "spec" : { } }`)],
    [
      "with escapes the encoder does not write",
      Buffer.from(`{${api},"metadata":{"name":"${name}"},"spec":{"displayName":"\\u00fc\\/"}}`),
    ],
    [
      "with metadata twice (the last one counts)",
      Buffer.from(
        `{${api},"metadata":{"name":"${name}","labels":{"first":"x"}},"spec":{},"metadata":{"name":"${name}"}}`,
      ),
    ],
    [
      "with a stored resourceVersion",
      Buffer.from(`{${api},"metadata":{"name":"${name}","resourceVersion":"1"},"spec":{}}`),
    ],
  ];
}

describe("the stored-bytes fast paths and the decoding path agree on every stored value", () => {
  let server: TestServer;
  before(async () => {
    server = await serverWithAFineTeam();
  });
  after(() => server.stop());

  /** The same answer: status, and the Status or the object(s). */
  const assertSame = (fast: TestResponse, slow: TestResponse, what: string) => {
    assert.equal(fast.status, slow.status, `${what}: ${fast.text} / ${slow.text}`);
    assert.ok(!fast.text.includes(MARK), `${what}: the stored bytes are never sent`);
    assert.deepEqual(fast.json, parseYaml(slow.text), what);
  };

  for (const [how, value] of oddTeams("odd")) {
    it(`${how}: GET, LIST and watch answer as the decoding path does`, async () => {
      const store = server.registry.store("teams");
      const before = await server.request("GET", `${GROUP_PATH}/teams?limit=1`);
      // Both watches from before the write: one sent stored bytes, one decoding (a selector).
      const watch = (query: string) =>
        watchLines(
          server,
          `${GROUP_PATH}/teams?watch=true&timeoutSeconds=1&resourceVersion=${before.json.metadata.resourceVersion}${query}`,
        );
      const [plain, selected] = [watch(""), watch("&labelSelector=tier%21%3Dnone")];
      await server.storage.create(store.key(undefined, "odd"), value);
      try {
        const yaml = { headers: { accept: "application/yaml" } };
        // Repeated: the first request authenticates the key, the next ones are answered from memory.
        for (let i = 0; i < 3; i++) {
          const fast = await server.request("GET", `${GROUP_PATH}/teams/odd`);
          assertSame(fast, await server.request("GET", `${GROUP_PATH}/teams/odd`, yaml), `${how}: GET`);
        }
        for (const query of ["", "?limit=1"]) {
          const fast = await server.request("GET", `${GROUP_PATH}/teams${query}`);
          assertSame(fast, await server.request("GET", `${GROUP_PATH}/teams${query}`, yaml), `${how}: LIST${query}`);
        }
        const [p, s] = [await plain, await selected];
        assert.ok(!p.join("\n").includes(MARK), `${how}: the stored bytes are never sent in a watch`);
        assert.deepEqual(
          p.map((l) => JSON.parse(l)),
          s.map((l) => JSON.parse(l)),
          `${how}: watch`,
        );
        assert.ok(p.length > 0, `${how}: the watch saw the write`);
      } finally {
        await server.storage.delete(store.key(undefined, "odd"));
      }
    });
  }
});

/**
 * Values in the store before the server starts: the watch cache's versions are checked in the
 * background once it is filled (registry/stored-bytes-precheck.ts), before any request. The
 * verdicts it leaves are the ones the requests would have reached: damaged values are still
 * refused and reported, odd ones still answered as the decoding path answers them.
 */
describe("values damaged before the start, checked in the background, are refused as before", () => {
  let server: TestServer;
  const odd = oddTeams("x").map(([how], i) => ({ how, name: `odd-${i}`, value: oddTeams(`odd-${i}`)[i]![1] }));
  /** The odd values that decode (answered, encoded afresh when not as stored); the others are refused. */
  const decodes = new Set([
    "as this server stores it",
    "with spaces",
    "with escapes the encoder does not write",
    "with metadata twice (the last one counts)",
    "with a stored resourceVersion",
  ]);
  before(async () => {
    const first = await serverWithAFineTeam();
    const store = first.registry.store("teams");
    for (const { name, value } of odd) await first.storage.create(store.key(undefined, name), value);
    await first.stop({ keepData: true });
    server = await startTestServer({ dataDir: first.dataDir });
  });
  after(() => server.stop());

  it("every version has its verdict with no request made, and the damaged ones are refused", async () => {
    await server.storedBytesPrecheck.idle();
    const store = server.registry.store("teams");
    for (const { how, name } of odd) {
      const kv = await server.storage.get(store.key(undefined, name));
      const sendable = how === "as this server stores it";
      assert.equal(store.versions.verdict(kv!), sendable, `${how}: checked in the background`);
    }
    const fine = await server.storage.get(store.key(undefined, "fine"));
    assert.equal(store.versions.verdict(fine!), true, "a value this server wrote: checked, sendable");

    // Refused as before: GET of each, and one LIST naming every damaged key.
    for (const { how, name } of odd) {
      const res = await server.request("GET", `${GROUP_PATH}/teams/${name}`);
      if (decodes.has(how)) assert.equal(res.status, 200, `${how}: ${res.text}`);
      else assertCorruptGet(res, name, how);
    }
    const list = await server.request("GET", `${GROUP_PATH}/teams`);
    assert.equal(list.status, 500, list.text);
    assert.equal(list.json.reason, "StorageReadError", list.text);
    assert.ok(!list.text.includes(MARK), "the stored bytes are never sent in a list");
    assert.deepEqual(
      list.json.details.causes.map((c: { field: string }) => c.field).sort(),
      odd
        .filter(({ how }) => !decodes.has(how))
        .map(({ name }) => store.key(undefined, name))
        .sort(),
      "one cause per damaged key, as before",
    );
    await assertRefusedEverywhere(server, odd[0]!.name, odd[0]!.how);
  });
});
