import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";
import { type StreamedEvent, WatchClient } from "../testing/watch-client.js";

/** What kubectl sends for `kubectl get` (it adds plain JSON as a fallback). */
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}
interface Row {
  cells: unknown[];
  // biome-ignore lint/suspicious/noExplicitAny: rows embed arbitrary objects
  object?: any;
}
interface Table {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string };
  columnDefinitions: Column[] | null;
  rows: Row[];
}

/** A row's cells keyed by column name, so assertions read like `kubectl get` output. */
function cellsOf(columns: Column[], row: Row): Record<string, unknown> {
  assert.equal(row.cells.length, columns.length, "one cell per column");
  return Object.fromEntries(columns.map((c, i) => [c.name, row.cells[i]]));
}

function defaultColumns(table: Table): string[] {
  return (table.columnDefinitions ?? []).filter((c) => c.priority === 0).map((c) => c.name);
}

const AGE = /^\d+(s|m|m\d+s|h|h\d+m|d|d\d+h|y)$/;

describe("Table output (kubectl get)", () => {
  let server: TestServer;
  const users = `${GROUP_PATH}/users`;
  const clusters = `${GROUP_PATH}/clusters`;
  const secrets = `${GROUP_PATH}/namespaces/platform/sharedsecrets`;
  const keys = `${GROUP_PATH}/ownedaccesskeys`;

  const getTable = async (path: string, query = "") => {
    const res = await server.request("GET", `${path}${query}`, { headers: { accept: TABLE } });
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers["content-type"]), /^application\/json/);
    const table = res.json as Table;
    assert.equal(table.kind, "Table");
    assert.equal(table.apiVersion, "meta.k8s.io/v1");
    return table;
  };
  const create = async (path: string, body: unknown) => {
    const res = await server.request("POST", path, { body });
    assert.equal(res.status, 201, res.text);
    return res.json;
  };

  before(async () => {
    server = await startTestServer();
    await create(users, {
      metadata: { name: "tbl-alice" },
      spec: {
        displayName: "Alice Liddell",
        email: "alice@example.com",
        clusterRoles: [{ name: "platform-management-view" }],
      },
    });
    await create(`${GROUP_PATH}/teams`, { metadata: { name: "tbl-devs" }, spec: { users: ["tbl-alice"] } });
    await create(clusters, {
      metadata: { name: "tbl-prod" },
      spec: { displayName: "Production", config: { secretName: "tbl-missing", secretNamespace: "platform" } },
    });
    await create(secrets, {
      metadata: { name: "tbl-db" },
      spec: { displayName: "Database", description: "primary", data: { user: "YWRtaW4=", password: "c2VjcmV0" } },
    });
    await create(keys, { metadata: { name: "tbl-key" }, spec: { displayName: "CI", user: "tbl-alice", ttl: 3600 } });
    // status.teams and the cluster's phase are written by controllers after the creates.
    await waitFor(
      "the controllers settling the fixtures",
      async () => ({
        alice: (await server.request("GET", `${users}/tbl-alice`)).json.status,
        prod: (await server.request("GET", `${clusters}/tbl-prod`)).json.status,
      }),
      ({ alice, prod }) => Boolean(alice?.teams?.includes("tbl-devs") && prod?.phase),
    );
  });
  after(async () => {
    await server.stop();
  });

  describe("columns of each kind", () => {
    const required: Record<string, { path: string; columns: string[] }> = {
      users: { path: users, columns: ["Name", "Display Name", "Email", "Teams", "Age"] },
      clusters: { path: clusters, columns: ["Name", "Display Name", "Phase", "Online", "Age"] },
      sharedsecrets: { path: secrets, columns: ["Name", "Display Name", "Keys", "Age"] },
      ownedaccesskeys: {
        path: keys,
        columns: ["Name", "Subject", "Type", "Disabled", "Expires", "Last Activity", "Age"],
      },
    };
    for (const [plural, want] of Object.entries(required)) {
      it(`${plural}: ${want.columns.join(", ")} by default`, async () => {
        assert.deepEqual(defaultColumns(await getTable(want.path)), want.columns);
      });
    }

    // Every kind that can be listed, so `kubectl get <kind>` and `-o wide` are useful for all.
    const listable = [
      "users",
      "teams",
      "clusters",
      "projects",
      "ownedaccesskeys",
      "sharedsecrets",
      "virtualclusterinstances",
      "clusterroletemplates",
      "spacetemplates",
      "spaceinstances",
      "projectsecrets",
      "clusteraccesses",
      "virtualclustertemplates",
    ];
    for (const plural of listable) {
      it(`${plural}: well-formed definitions, Name first, Age shown, extra columns for -o wide`, async () => {
        const table = await getTable(`${GROUP_PATH}/${plural}`);
        const columns = table.columnDefinitions ?? [];
        assert.deepEqual(columns[0], {
          name: "Name",
          type: "string",
          format: "name",
          description: columns[0]?.description,
          priority: 0,
        });
        assert.ok(defaultColumns(table).includes("Age"));
        for (const c of columns) {
          assert.ok(["string", "integer", "number", "boolean"].includes(c.type), `${c.name}: type ${c.type}`);
          assert.equal(typeof c.format, "string");
          assert.ok(c.description.length > 0, `${c.name} has a description`);
          assert.ok(c.priority === 0 || c.priority === 1, `${c.name}: priority ${c.priority}`);
        }
        assert.equal(new Set(columns.map((c) => c.name)).size, columns.length, "column names are unique");
        assert.ok(
          columns.some((c) => c.priority === 1),
          "at least one column only for -o wide",
        );
      });
    }
  });

  describe("GET of one object", () => {
    it("a user: one row with its cells, the object's resourceVersion, its metadata as the row object", async () => {
      const plain = (await server.request("GET", `${users}/tbl-alice`)).json;
      const table = await getTable(`${users}/tbl-alice`);
      assert.equal(table.metadata.resourceVersion, plain.metadata.resourceVersion);
      assert.equal(table.rows.length, 1);
      const cells = cellsOf(table.columnDefinitions!, table.rows[0]!);
      assert.equal(cells.Name, "tbl-alice");
      assert.equal(cells["Display Name"], "Alice Liddell");
      assert.equal(cells.Email, "alice@example.com");
      assert.equal(cells.Teams, "tbl-devs");
      assert.match(String(cells.Age), AGE);
      assert.equal(cells["Cluster Roles"], "platform-management-view");
      assert.equal(cells.Disabled, false);
      // includeObject defaults to Metadata.
      const object = table.rows[0]!.object;
      assert.equal(object.kind, "PartialObjectMetadata");
      assert.equal(object.apiVersion, "meta.k8s.io/v1");
      assert.equal(object.metadata.name, "tbl-alice");
      assert.equal(object.metadata.uid, plain.metadata.uid);
      assert.equal(object.spec, undefined);
    });

    it("a cluster: Phase and Online come from its status", async () => {
      const table = await getTable(`${clusters}/tbl-prod`, "?includeObject=Object");
      const row = table.rows[0]!;
      const cells = cellsOf(table.columnDefinitions!, row);
      assert.equal(cells.Name, "tbl-prod");
      assert.equal(cells["Display Name"], "Production");
      assert.ok(row.object.status.phase, "the controller has set a phase");
      assert.equal(cells.Phase, row.object.status.phase);
      assert.equal(cells.Online, row.object.status.online === true);
      assert.equal(cells.Reason, row.object.status.reason ?? "");
    });

    it("the status subresource renders as the object does (kubectl get --subresource=status)", async () => {
      const table = await getTable(`${clusters}/tbl-prod/status`, "?includeObject=Object");
      const row = table.rows[0]!;
      const cells = cellsOf(table.columnDefinitions!, row);
      assert.equal(cells.Name, "tbl-prod");
      assert.equal(row.object.kind, "Cluster");
      assert.equal(cells.Phase, row.object.status.phase);
    });

    it("a shared secret: Keys counts its data keys", async () => {
      const table = await getTable(`${secrets}/tbl-db`);
      const cells = cellsOf(table.columnDefinitions!, table.rows[0]!);
      assert.equal(cells.Name, "tbl-db");
      assert.equal(cells["Display Name"], "Database");
      assert.equal(cells.Keys, 2);
      assert.equal(cells.Description, "primary");
      assert.match(String(cells.Age), AGE);
    });

    it("an access key: subject, type, expiry from ttl, no activity yet", async () => {
      const table = await getTable(`${keys}/tbl-key`, "?includeObject=Object");
      const row = table.rows[0]!;
      const cells = cellsOf(table.columnDefinitions!, row);
      const expires = new Date(Date.parse(row.object.metadata.creationTimestamp) + 3600_000);
      assert.equal(cells.Name, "tbl-key");
      assert.equal(cells.Subject, "user:tbl-alice");
      assert.equal(cells.Type, "User");
      assert.equal(cells.Disabled, false);
      assert.equal(cells.Expires, expires.toISOString().replace(/\.\d+Z$/, "Z"));
      assert.equal(cells["Last Activity"], "<never>");
      assert.equal(cells["Display Name"], "CI");
    });
  });

  describe("includeObject", () => {
    for (const [what, path] of [
      ["GET", `${users}/tbl-alice`],
      ["LIST", users],
    ] as const) {
      it(`${what}: None, Metadata and Object; anything else is a 400 Status`, async () => {
        const none = await getTable(path, "?includeObject=None");
        assert.ok(none.rows.length > 0);
        for (const row of none.rows) assert.equal(row.object ?? null, null);

        const metadata = await getTable(path, "?includeObject=Metadata");
        for (const row of metadata.rows) {
          assert.equal(row.object.kind, "PartialObjectMetadata");
          assert.equal(row.object.spec, undefined);
        }

        const full = await getTable(path, "?includeObject=Object");
        for (const row of full.rows) {
          assert.equal(row.object.kind, "User");
          assert.equal(row.object.apiVersion, "management.platform/v1");
          assert.equal(cellsOf(full.columnDefinitions!, row).Name, row.object.metadata.name);
        }
        const alice = full.rows.find((r) => r.object.metadata.name === "tbl-alice");
        assert.equal(alice?.object.spec.email, "alice@example.com");

        const bad = await server.request("GET", `${path}?includeObject=Everything`, { headers: { accept: TABLE } });
        assert.equal(bad.status, 400, bad.text);
        assert.equal(bad.json.kind, "Status");
        assert.equal(bad.json.reason, "BadRequest");
        assert.match(bad.json.message, /includeObject: Invalid value: "Everything"/);
      });
    }

    it("is a Table option: without a Table accept it is ignored, as kube-apiserver does", async () => {
      const res = await server.request("GET", `${users}/tbl-alice?includeObject=Everything`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.json.kind, "User");
    });
  });

  describe("LIST", () => {
    it("one row per item, in list order, with the list's metadata", async () => {
      const plain = (await server.request("GET", users)).json;
      const table = await getTable(users);
      const names = table.rows.map((r) => cellsOf(table.columnDefinitions!, r).Name);
      assert.deepEqual(
        names,
        plain.items.map((u: { metadata: { name: string } }) => u.metadata.name),
      );
      assert.ok(names.includes("tbl-alice"));
      assert.match(table.metadata.resourceVersion ?? "", /^\d+$/);
    });

    it("pages with limit and continue", async () => {
      const first = await getTable(users, "?limit=1");
      assert.equal(first.rows.length, 1);
      assert.ok(first.metadata.continue, "a continue token for the next page");
      const next = await getTable(users, `?limit=1&continue=${encodeURIComponent(first.metadata.continue!)}`);
      assert.equal(next.rows.length, 1);
      assert.notEqual(next.rows[0]!.cells[0], first.rows[0]!.cells[0]);
    });

    it("Table works across namespaces too (kubectl get -A)", async () => {
      const table = await getTable(`${GROUP_PATH}/sharedsecrets`);
      const names = table.rows.map((r) => r.cells[0]);
      assert.ok(names.includes("tbl-db"));
      assert.equal(table.rows.find((r) => r.cells[0] === "tbl-db")?.object.metadata.namespace, "platform");
    });
  });

  describe("WATCH", () => {
    it("each event carries a one-row Table; column definitions only in the first", async () => {
      const listed = await getTable(users);
      const from = `resourceVersion=${listed.metadata.resourceVersion}&labelSelector=tbl-watch%3Dyes&timeoutSeconds=60`;
      const open = (include: string) =>
        new WatchClient(server, `${users}?watch=true&${from}${include}`, server.adminKey, TABLE);
      const watches = { Metadata: open(""), None: open("&includeObject=None"), Object: open("&includeObject=Object") };
      const deleted = (events: readonly StreamedEvent[]) => events.some((e) => e.type === "DELETED");
      try {
        const created = await create(users, {
          metadata: { name: "tbl-w1", labels: { "tbl-watch": "yes" } },
          spec: { displayName: "First" },
        });
        const renamed = await server.request("PATCH", `${users}/tbl-w1`, {
          body: { spec: { displayName: "Renamed" } },
          contentType: "application/merge-patch+json",
        });
        assert.equal(renamed.status, 200, renamed.text);
        assert.equal((await server.request("DELETE", `${users}/tbl-w1`)).status, 200);
        for (const w of Object.values(watches)) await w.until(deleted);

        for (const [include, w] of Object.entries(watches)) {
          const events = w.events as unknown as Array<{ type: string; object: Table }>;
          assert.deepEqual(
            events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1]),
            ["ADDED", "MODIFIED", "DELETED"],
            include,
          );
          assert.deepEqual(events[0]!.object.columnDefinitions, listed.columnDefinitions, include);
          for (const e of events.slice(1)) assert.equal(e.object.columnDefinitions ?? null, null, include);
          const columns = listed.columnDefinitions!;
          for (const e of events) {
            assert.equal(e.object.kind, "Table");
            assert.equal(e.object.apiVersion, "meta.k8s.io/v1");
            assert.equal(e.object.rows.length, 1);
            assert.equal(cellsOf(columns, e.object.rows[0]!).Name, "tbl-w1");
            assert.match(e.object.metadata.resourceVersion ?? "", /^\d+$/);
          }
          const first = cellsOf(columns, events[0]!.object.rows[0]!);
          assert.equal(first["Display Name"], "First");
          const modified = events.filter((e) => e.type === "MODIFIED").at(-1)!;
          assert.equal(cellsOf(columns, modified.object.rows[0]!)["Display Name"], "Renamed");

          const objects = events.map((e) => e.object.rows[0]!.object);
          if (include === "None") for (const o of objects) assert.equal(o ?? null, null);
          if (include === "Metadata") for (const o of objects) assert.equal(o.kind, "PartialObjectMetadata");
          if (include === "Object") {
            for (const o of objects) assert.equal(o.kind, "User");
            assert.equal(objects[0].metadata.uid, created.metadata.uid);
          }
        }
      } finally {
        for (const w of Object.values(watches)) w.close();
      }
    });

    it("a watch with an unknown includeObject is refused before it starts (400 Status)", async () => {
      const res = await server.request("GET", `${users}?watch=true&includeObject=All`, { headers: { accept: TABLE } });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.kind, "Status");
      assert.match(res.json.message, /includeObject/);
    });
  });
});
