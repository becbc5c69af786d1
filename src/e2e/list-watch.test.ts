import assert from "node:assert/strict";
import { request as httpsRequest } from "node:https";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

interface WatchLine {
  type: string;
  object: {
    metadata: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
    code?: number;
    reason?: string;
  };
}

/** Opens a watch and collects events until `until` says stop or the stream ends. */
function watch(
  server: TestServer,
  path: string,
  until: (events: WatchLine[]) => boolean,
): Promise<{ status: number; events: WatchLine[]; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const events: WatchLine[] = [];
    const req = httpsRequest(
      new URL(path, server.url),
      { headers: { authorization: `Bearer ${server.adminKey}`, accept: "application/json" }, ca: server.caPem },
      (res) => {
        let buf = "";
        let done = false;
        const finish = (ended: boolean) => {
          if (done) return;
          done = true;
          req.destroy();
          resolve({ status: res.statusCode ?? 0, events, ended });
        };
        res.on("data", (chunk: Buffer) => {
          buf += chunk.toString("utf8");
          for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line.trim()) events.push(JSON.parse(line) as WatchLine);
          }
          if (until(events)) finish(false);
        });
        res.on("end", () => finish(true));
      },
    );
    req.on("error", (err) => {
      if ((err as NodeJS.ErrnoException).code !== "ECONNRESET") reject(err);
    });
    req.end();
  });
}

describe("list and watch", () => {
  let server: TestServer;
  const teams = `${GROUP_PATH}/teams`;
  const team = (name: string, labels: Record<string, string> = {}) => ({
    apiVersion: "management.platform/v1",
    kind: "Team",
    metadata: { name, labels },
    spec: {},
  });

  before(async () => {
    server = await startTestServer();
    for (let i = 0; i < 12; i++) {
      const res = await server.request("POST", teams, {
        body: team(`team-${String(i).padStart(2, "0")}`, { tier: i % 3 === 0 ? "gold" : "silver", [`n${i}`]: "" }),
      });
      assert.equal(res.status, 201);
    }
  });
  after(async () => {
    await server.stop();
  });

  it("label selectors: =, ==, !=, in, notin, exists, !exists", async () => {
    const names = async (selector: string) => {
      const res = await server.request("GET", `${teams}?labelSelector=${encodeURIComponent(selector)}`);
      assert.equal(res.status, 200, res.text);
      return res.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    };
    assert.equal((await names("tier=gold")).length, 4);
    assert.equal((await names("tier==gold")).length, 4);
    assert.equal((await names("tier!=gold")).length, 8);
    assert.equal((await names("tier in (gold, silver)")).length, 12);
    assert.equal((await names("tier notin (gold)")).length, 8);
    assert.deepEqual(await names("n3"), ["team-03"]);
    assert.equal((await names("!n3")).length, 11);
    const bad = await server.request("GET", `${teams}?labelSelector=${encodeURIComponent("tier in gold")}`);
    assert.equal(bad.status, 400);
  });

  it("field selectors on metadata.name; other fields are 400", async () => {
    const res = await server.request("GET", `${teams}?fieldSelector=metadata.name%3Dteam-05`);
    assert.deepEqual(
      res.json.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ["team-05"],
    );
    const bad = await server.request("GET", `${teams}?fieldSelector=spec.displayName%3Dx`);
    assert.equal(bad.status, 400);
    assert.match(bad.json.message, /field label not supported/);
  });

  it("limit and continue page through one snapshot", async () => {
    const first = await server.request("GET", `${teams}?limit=5`);
    assert.equal(first.json.items.length, 5);
    assert.ok(first.json.metadata.continue);
    assert.equal(first.json.metadata.remainingItemCount, 7);
    // A write between pages is not seen by later pages of the same list.
    await server.request("POST", teams, { body: team("team-99") });
    const second = await server.request("GET", `${teams}?limit=5&continue=${first.json.metadata.continue}`);
    const third = await server.request("GET", `${teams}?limit=5&continue=${second.json.metadata.continue}`);
    const all = [...first.json.items, ...second.json.items, ...third.json.items].map((i) => i.metadata.name);
    assert.equal(all.length, 12);
    assert.ok(!all.includes("team-99"));
    assert.equal(third.json.metadata.continue, undefined);
    assert.equal(second.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
    await server.request("DELETE", `${teams}/team-99`);
    const garbage = await server.request("GET", `${teams}?limit=5&continue=not-a-token`);
    assert.equal(garbage.status, 400);
  });

  it("resourceVersion and resourceVersionMatch", async () => {
    const list = await server.request("GET", teams);
    const rv = Number(list.json.metadata.resourceVersion);
    await server.request("POST", teams, { body: team("rv-new") });
    const exact = await server.request("GET", `${teams}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 200, exact.text);
    assert.ok(!exact.json.items.some((i: { metadata: { name: string } }) => i.metadata.name === "rv-new"));
    assert.equal(exact.json.metadata.resourceVersion, String(rv));
    const notOlder = await server.request("GET", `${teams}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`);
    assert.ok(notOlder.json.items.some((i: { metadata: { name: string } }) => i.metadata.name === "rv-new"));
    // As kube-apiserver's ValidateListOptions: 422 Invalid of ListOptions.meta.k8s.io, the cause on resourceVersionMatch.
    const matchWithoutRv = await server.request("GET", `${teams}?resourceVersionMatch=Exact`);
    assert.equal(matchWithoutRv.status, 422);
    assert.deepEqual(
      matchWithoutRv.json.details.causes.map((c: { field: string; reason: string }) => `${c.field} ${c.reason}`),
      ["resourceVersionMatch FieldValueForbidden"],
    );
    const badMatch = await server.request("GET", `${teams}?resourceVersion=1&resourceVersionMatch=Sometimes`);
    assert.equal(badMatch.status, 422);
    assert.equal(badMatch.json.details.kind, "ListOptions");
    assert.equal(badMatch.json.details.causes[0].reason, "FieldValueNotSupported");
    const future = await server.request(
      "GET",
      `${teams}?resourceVersion=${rv + 100000}&resourceVersionMatch=NotOlderThan`,
    );
    assert.equal(future.status, 504);
  });

  it("a compacted revision is 410 Expired for lists and continue tokens", async () => {
    const page = await server.request("GET", `${teams}?limit=2`);
    const old = Number(page.json.metadata.resourceVersion);
    await server.request("POST", teams, { body: team("compact-a") });
    await server.storage.compact(await server.storage.currentRevision());
    const exact = await server.request("GET", `${teams}?resourceVersion=${old}&resourceVersionMatch=Exact`);
    assert.equal(exact.status, 410);
    assert.equal(exact.json.reason, "Expired");
    const cont = await server.request("GET", `${teams}?limit=2&continue=${page.json.metadata.continue}`);
    assert.equal(cont.status, 410);
    assert.equal(cont.json.reason, "Expired");
  });

  it("watch without resourceVersion starts with ADDED events for what exists, then changes", async () => {
    // The changes are made once the watch sent what exists (team-00 is gold): from then on it
    // streams every change. Made earlier, w-gold could come as one ADDED of its patched state.
    let listed!: () => void;
    const sentWhatExists = new Promise<void>((resolve) => {
      listed = resolve;
    });
    const pending = watch(server, `${teams}?watch=true&labelSelector=tier%3Dgold`, (ev) => {
      if (ev.some((e) => e.type === "ADDED" && e.object.metadata.name === "team-00")) listed();
      return ev.some((e) => e.type === "DELETED");
    });
    // A watch that ends without sending it fails the assertions below instead of waiting here.
    await Promise.race([sentWhatExists, pending]);
    await server.request("POST", teams, { body: team("w-gold", { tier: "gold" }) });
    await server.request("PATCH", `${teams}/w-gold`, {
      body: { spec: { displayName: "x" } },
      contentType: "application/merge-patch+json",
    });
    await server.request("DELETE", `${teams}/w-gold`);
    const { status, events } = await pending;
    assert.equal(status, 200);
    const added = events.filter((e) => e.type === "ADDED").map((e) => e.object.metadata.name);
    assert.ok(added.includes("team-00"));
    assert.ok(added.includes("w-gold"));
    assert.deepEqual(
      events.filter((e) => e.object.metadata.name === "w-gold").map((e) => e.type),
      ["ADDED", "MODIFIED", "DELETED"],
    );
  });

  it("watch from a resourceVersion replays only later changes; leaving the selector is DELETED", async () => {
    const list = await server.request("GET", teams);
    const rv = list.json.metadata.resourceVersion;
    await server.request("POST", teams, { body: team("w-move", { tier: "gold" }) });
    await server.request("PATCH", `${teams}/w-move`, {
      body: { metadata: { labels: { tier: "bronze" } } },
      contentType: "application/merge-patch+json",
    });
    const { events } = await watch(
      server,
      `${teams}?watch=true&resourceVersion=${rv}&labelSelector=tier%3Dgold`,
      (ev) => ev.length >= 2,
    );
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata.name]),
      [
        ["ADDED", "w-move"],
        ["DELETED", "w-move"],
      ],
    );
  });

  it("a too-old resourceVersion is an ERROR event with 410 Expired", async () => {
    const { events } = await watch(server, `${teams}?watch=true&resourceVersion=1`, (ev) => ev.length >= 1);
    assert.equal(events[0]?.type, "ERROR");
    assert.equal(events[0]?.object.code, 410);
    assert.equal(events[0]?.object.reason, "Expired");
  });

  it("timeoutSeconds ends the stream; bookmarks carry the revision; sendInitialEvents ends with the annotated bookmark", async () => {
    const timed = await watch(
      server,
      `${teams}?watch=true&resourceVersion=${(await server.request("GET", teams)).json.metadata.resourceVersion}&timeoutSeconds=1`,
      () => false,
    );
    assert.equal(timed.ended, true);
    const initial = await watch(
      server,
      `${teams}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
      (ev) => ev.some((e) => e.type === "BOOKMARK"),
    );
    const bookmark = initial.events.at(-1)!;
    assert.equal(bookmark.type, "BOOKMARK");
    assert.equal(bookmark.object.metadata.annotations?.["k8s.io/initial-events-end"], "true");
    assert.ok(initial.events.filter((e) => e.type === "ADDED").length >= 12);
    const periodic = await watch(
      server,
      `${teams}?watch=true&resourceVersion=${bookmark.object.metadata.resourceVersion}&allowWatchBookmarks=true`,
      (ev) => ev.some((e) => e.type === "BOOKMARK"),
    );
    assert.equal(periodic.events[0]?.type, "BOOKMARK");
    const forbidden = await server.request("GET", `${teams}?watch=true&sendInitialEvents=true`);
    assert.equal(forbidden.status, 422);
  });
});
