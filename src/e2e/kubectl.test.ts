import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type KubectlBinary, kubectlBinaries } from "../testing/kubectl-binaries.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

/**
 * Every kubectl from 1.20 to the newest one here (src/testing/kubectl-binaries.ts) against a
 * real server, with default flags: discovery, OpenAPI (v2 for kubectl up to 1.26: client-side
 * validation, explain; v3 after: server-side field validation), Table output, writes and
 * watches. Where kubectl itself prints differently from one minor to the next, the assertion
 * takes each form; what the server answers is the same for all.
 */

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

// The minors are independent (each has a server of its own), so they run side by side: one after
// another, they made this the suite's longest file. Within a minor the steps build on each other
// (the concurrency is inherited unless set), so they run in order.
describe("every kubectl minor", { concurrency: 4 }, () => {
  for (const binary of kubectlBinaries())
    describe(`kubectl 1.${binary.minor}`, { concurrency: 1 }, () => kubectlSuite(binary));
});

function kubectlSuite({ minor, path: KUBECTL }: KubectlBinary): void {
  let server: TestServer;
  let kubeconfig: string;
  let env: NodeJS.ProcessEnv;

  const kubectl = (args: string[], extraEnv: NodeJS.ProcessEnv = {}, input?: string): Promise<Result> =>
    new Promise((resolve) => {
      const child = execFile(
        KUBECTL,
        ["--kubeconfig", kubeconfig, ...args],
        { env: { ...env, ...extraEnv }, timeout: 20_000 },
        (err, stdout, stderr) => {
          const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
          resolve({ code, stdout: stdout.toString(), stderr: stderr.toString() });
        },
      );
      if (input !== undefined) child.stdin?.end(input);
    });
  const ok = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> => {
    const r = await kubectl(args, extraEnv);
    assert.equal(r.code, 0, `kubectl ${args.join(" ")} failed: ${r.stderr}`);
    return r.stdout;
  };
  const file = (name: string, text: string): string => {
    const path = join(server.dataDir, name);
    writeFileSync(path, text);
    return path;
  };

  before(async () => {
    server = await startTestServer();
    kubeconfig = server.kubeconfig();
    // A private HOME keeps kubectl's discovery cache per test run.
    env = { PATH: process.env.PATH, HOME: server.dataDir, KUBECONFIG: "" };
  });
  after(async () => {
    await server.stop();
  });

  it("discovers the API: api-resources, api-versions, version, explain", async () => {
    const resources = await ok(["api-resources", "--api-group=management.platform", "-o", "wide"]);
    // kubectl before 1.22 prints the verbs as `[create delete …]`.
    assert.match(resources, /^users\s+usr\s+management\.platform\/v1\s+false\s+User\s+\[?create[, ]delete[, ]/m);
    assert.match(resources, /^sharedsecrets\s+\S+\s+management\.platform\/v1\s+true\s+SharedSecret/m);
    if (minor >= 27) {
      // The category column and `--categories` are kubectl's since 1.21 and 1.24.
      assert.match(resources, /platform/);
      const byCategory = await ok(["api-resources", "--categories=platform", "-o", "name"]);
      assert.ok(byCategory.split("\n").includes("users.management.platform"), byCategory);
    }
    const versions = await ok(["api-versions"]);
    assert.match(versions, /^management\.platform\/v1$/m);
    assert.match(versions, /^authorization\.k8s\.io\/v1$/m);
    assert.match(await ok(["version", "-o", "json"]), /"gitVersion": "v1\.32/);

    const explained = await ok(["explain", "users.spec.clusterRoles"]);
    assert.match(explained, /KIND:\s+User/);
    // From /openapi/v2 up to kubectl 1.26 (which says RESOURCE), from v3 after.
    assert.match(explained, /(FIELD|RESOURCE): clusterRoles <\[\]Object>/);
    assert.match(explained, /Cluster roles granted to this subject/);
    assert.match(explained, /name\s+<string> -required-/);
    assert.match(await ok(["explain", "clusters.status"]), /online\s+<boolean>/);
  });

  it("auth whoami, auth can-i and can-i --list", async () => {
    // `auth whoami` came with kubectl 1.26 (alpha; beta, and so here, in 1.27).
    if (minor >= 27) {
      const whoami = await ok(["auth", "whoami"]);
      assert.match(whoami, /Username\s+admin/);
      assert.match(whoami, /system:authenticated/);
      const json = await ok(["auth", "whoami", "-o", "json"]);
      assert.equal(JSON.parse(json).status.userInfo.username, "admin");
    } else {
      assert.match((await kubectl(["auth", "whoami"])).stderr, /unknown command "whoami"/);
    }
    const yes = await kubectl(["auth", "can-i", "create", "users"]);
    assert.equal(yes.code, 0, yes.stderr);
    assert.equal(yes.stdout.trim(), "yes");
    assert.equal((await ok(["auth", "can-i", "get", "sharedsecrets", "-n", "platform"])).trim(), "yes");
    // kubectl 1.20 sends `"status": {"resourceRules": null}` in its review.
    assert.match(
      await ok(["auth", "can-i", "--list"]),
      /^users\.management\.platform\s+\[\]\s+\[\]\s+\[create delete /m,
    );
  });

  it("create -f, apply -f twice, server-side validation and dry run", async () => {
    const team = file(
      "team.yaml",
      "apiVersion: management.platform/v1\nkind: Team\nmetadata:\n  name: devs\nspec:\n  displayName: Devs\n",
    );
    assert.equal((await ok(["create", "-f", team])).trim(), "team.management.platform/devs created");
    const again = await kubectl(["create", "-f", team]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /AlreadyExists|already exists/);

    const user = file(
      "user.yaml",
      "apiVersion: management.platform/v1\nkind: User\nmetadata:\n  name: alice\n  labels:\n    tier: gold\nspec:\n  displayName: Alice\n  email: alice@example.com\n  clusterRoles:\n  - name: platform-management-view\n",
    );
    assert.equal((await ok(["apply", "-f", user])).trim(), "user.management.platform/alice created");
    assert.equal((await ok(["apply", "-f", user])).trim(), "user.management.platform/alice unchanged");
    writeFileSync(user, readFileSync(user, "utf8").replace("Alice\n", "Alice A\n"));
    assert.equal((await ok(["apply", "-f", user])).trim(), "user.management.platform/alice configured");
    assert.equal(await ok(["get", "user", "alice", "-o", "jsonpath={.spec.displayName}"]), "Alice A");
    // diff: a server dry run of the change; exit 0 when nothing would change, 1 with the diff.
    const same = await kubectl(["diff", "-f", user]);
    assert.equal(same.code, 0, same.stderr + same.stdout);
    const changed = file("user-changed.yaml", readFileSync(user, "utf8").replace("Alice A\n", "Alice B\n"));
    const diff = await kubectl(["diff", "-f", changed]);
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /^\+\s+displayName: Alice B$/m);

    const secret = file(
      "secret.yaml",
      "apiVersion: management.platform/v1\nkind: SharedSecret\nmetadata:\n  name: db\n  namespace: platform\nspec:\n  displayName: DB\n  data:\n    password: c2VjcmV0\n",
    );
    assert.equal((await ok(["apply", "-f", secret])).trim(), "sharedsecret.management.platform/db created");
    assert.equal((await ok(["apply", "-f", secret])).trim(), "sharedsecret.management.platform/db unchanged");

    // Default validation is Strict because the OpenAPI document says the server checks fields.
    const bad = file(
      "bad.yaml",
      "apiVersion: management.platform/v1\nkind: Team\nmetadata:\n  name: bad\nspec:\n  bogus: 1\n",
    );
    const rejected = await kubectl(["create", "-f", bad]);
    assert.equal(rejected.code, 1);
    // Up to 1.26 kubectl validates itself against /openapi/v2 (the schema's name in its message);
    // later ones leave it to the server (fieldValidation=Strict).
    assert.match(
      rejected.stderr,
      minor <= 26 ? /unknown field "bogus" in platform\.management\.v1\.Team\.spec/ : /unknown field "spec\.bogus"/,
    );
    const badRole = await kubectl(
      ["create", "-f", "-"],
      {},
      readFileSync(user, "utf8").replace("alice", "bob").replace("platform-management-view", "nope"),
    );
    assert.equal(badRole.code, 1);
    // kubectl prints each cause as `<field>: <message>`: the message must not name the field again.
    assert.match(
      badRole.stderr,
      /The User "bob" is invalid: spec\.clusterRoles\[0\]\.name: Unsupported value: "nope": supported values: /,
    );
    assert.equal(badRole.stderr.split("spec.clusterRoles[0].name").length - 1, 1, badRole.stderr);

    const other = file(
      "other.yaml",
      "apiVersion: management.platform/v1\nkind: Team\nmetadata:\n  name: ghost\nspec:\n  displayName: Ghost\n",
    );
    assert.match(await ok(["create", "-f", other, "--dry-run=server"]), /ghost created \(server dry run\)/);
    const ghost = await kubectl(["get", "team", "ghost"]);
    assert.equal(ghost.code, 1);
    assert.match(ghost.stderr, /NotFound|not found/);
  });

  it("get in every output format", async () => {
    const table = await ok(["get", "users"]);
    assert.match(table, /^NAME\s+DISPLAY NAME\s+EMAIL\s+TEAMS\s+AGE$/m);
    assert.match(table, /^alice\s+Alice A\s+alice@example\.com\s+\S+$/m);
    const wide = await ok(["get", "users", "-o", "wide"]);
    assert.match(wide, /CLUSTER ROLES/);
    assert.match(wide, /^alice\s+.*platform-management-view/m);
    const yaml = await ok(["get", "user", "alice", "-o", "yaml"]);
    assert.match(yaml, /^kind: User$/m);
    assert.match(yaml, /^ {2}email: alice@example\.com$/m);
    const json = JSON.parse(await ok(["get", "users", "-o", "json"]));
    assert.equal(json.kind, "List");
    assert.ok(json.items.some((u: { metadata: { name: string } }) => u.metadata.name === "alice"));
    assert.equal(
      (await ok(["get", "users", "-o", "name"])).trim(),
      "user.management.platform/admin\nuser.management.platform/alice",
    );
    assert.equal(await ok(["get", "users", "-o", "jsonpath={.items[*].metadata.name}"]), "admin alice");
    const custom = await ok(["get", "users", "-o", "custom-columns=N:.metadata.name,E:.spec.email"]);
    assert.match(custom, /^N\s+E$/m);
    assert.match(custom, /^alice\s+alice@example\.com$/m);
    assert.match(await ok(["get", "users", "--show-labels"]), /^alice\s+.*tier=gold$/m);
    assert.match(await ok(["get", "users", "-L", "tier"]), /^alice\s+.*\sgold$/m);
    // Name order and display-name order differ, so the sort is visible.
    await ok([
      "apply",
      "-f",
      file(
        "zeta.yaml",
        "apiVersion: management.platform/v1\nkind: Team\nmetadata:\n  name: zeta\nspec:\n  displayName: Alpha\n",
      ),
    ]);
    const sorted = await ok(["get", "teams", "--sort-by=.spec.displayName", "-o", "name"]);
    assert.deepEqual(sorted.trim().split("\n"), ["team.management.platform/zeta", "team.management.platform/devs"]);
    assert.match(await ok(["get", "users", "-l", "tier=gold", "-o", "name"]), /^user\.management\.platform\/alice\n$/);

    // The category lists every listable kind (create-only kinds stay out of it).
    const category = await ok(["get", "platform", "-A", "-o", "name"]);
    assert.match(category, /^user\.management\.platform\/alice$/m);
    assert.match(category, /^sharedsecret\.management\.platform\/db$/m);
    const all = await ok(["get", "sharedsecrets", "-A"]);
    assert.match(all, /^NAMESPACE\s+NAME\s+DISPLAY NAME\s+KEYS\s+AGE$/m);
    assert.match(all, /^platform\s+db\s+DB\s+1\s+\S+$/m);
    assert.match(
      await ok(["get", "sharedsecrets", "-n", "platform", "-o", "name"]),
      /sharedsecret\.management\.platform\/db/,
    );
    // The namespaces there are (kubens lists them the same way).
    assert.match(await ok(["get", "ns"]), /^platform\s+Active\s+\S+$/m);
    assert.equal((await ok(["get", "namespaces", "-o", "name"])).trim(), "namespace/platform");
    const none = await kubectl(["get", "sharedsecrets"]);
    assert.equal(none.code, 0);
    assert.match(none.stderr, /No resources found in default namespace/);
    assert.match(
      await ok(["get", "ownedaccesskeys"]),
      /^NAME\s+SUBJECT\s+TYPE\s+DISABLED\s+EXPIRES\s+LAST ACTIVITY\s+AGE$/m,
    );
  });

  it("label, annotate, patch (merge, json; strategic is refused), replace, edit", async () => {
    assert.equal((await ok(["label", "users", "alice", "team=a"])).trim(), "user.management.platform/alice labeled");
    // kubectl 1.27 prints "annotate" for "annotated".
    assert.match(
      (await ok(["annotate", "users", "alice", "note=hi"])).trim(),
      /^user\.management\.platform\/alice annotated?$/,
    );
    const meta = JSON.parse(await ok(["get", "user", "alice", "-o", "json"])).metadata;
    assert.equal(meta.labels.team, "a");
    assert.equal(meta.annotations.note, "hi");

    const strategic = await kubectl(["patch", "users", "alice", "-p", '{"spec":{"description":"x"}}']);
    assert.equal(strategic.code, 1);
    // kubectl 1.20 shows the server's 415; later ones read the patch types from OpenAPI v3 first.
    assert.match(
      strategic.stderr,
      minor <= 20
        ? /UnsupportedMediaType.*application\/merge-patch\+json/
        : /application\/strategic-merge-patch\+json is not supported/,
    );
    assert.match(
      await ok(["patch", "users", "alice", "--type", "merge", "-p", '{"spec":{"description":"merged"}}']),
      /alice patched/,
    );
    assert.match(
      await ok([
        "patch",
        "users",
        "alice",
        "--type",
        "json",
        "-p",
        '[{"op":"replace","path":"/spec/description","value":"json"}]',
      ]),
      /alice patched/,
    );
    assert.equal(await ok(["get", "user", "alice", "-o", "jsonpath={.spec.description}"]), "json");

    const current = await ok(["get", "user", "alice", "-o", "yaml"]);
    const replaced = file("replace.yaml", current.replace("description: json", "description: replaced"));
    assert.equal((await ok(["replace", "-f", replaced])).trim(), "user.management.platform/alice replaced");
    assert.equal(await ok(["get", "user", "alice", "-o", "jsonpath={.spec.description}"]), "replaced");

    const editor = file("editor.sh", "#!/bin/sh\nsed -i 's/description: replaced/description: edited/' \"$1\"\n");
    chmodSync(editor, 0o755);
    assert.equal(
      (await ok(["edit", "users", "alice"], { EDITOR: editor })).trim(),
      "user.management.platform/alice edited",
    );
    assert.equal(await ok(["get", "user", "alice", "-o", "jsonpath={.spec.description}"]), "edited");
  });

  it("get -w prints changes made by another process", async () => {
    const child: ChildProcess = spawn(
      KUBECTL,
      ["--kubeconfig", kubeconfig, "get", "teams", "-w", "--output-watch-events"],
      {
        env,
      },
    );
    let out = "";
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
    });
    const watched = (re: RegExp) =>
      waitFor(
        `kubectl get -w printing ${re}`,
        async () => out,
        (o) => re.test(o),
      );
    try {
      await watched(/^ADDED\s+devs\s+Devs/m);
      await ok(["label", "teams", "devs", "watched=yes"]);
      await watched(/^MODIFIED\s+devs\s+Devs/m);
      await ok(["delete", "teams", "devs"]);
      await watched(/^DELETED\s+devs\s+Devs/m);
    } finally {
      child.kill();
    }
  });

  it("delete with --wait, and delete -l", async () => {
    assert.equal(
      (await ok(["delete", "users", "alice", "--wait=true", "--timeout=15s"])).trim(),
      'user.management.platform "alice" deleted',
    );
    const gone = await kubectl(["get", "user", "alice"]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /users\.management\.platform "alice" not found/);

    for (const name of ["p1", "p2"]) {
      await ok([
        "apply",
        "-f",
        file(
          `${name}.yaml`,
          `apiVersion: management.platform/v1\nkind: Team\nmetadata:\n  name: ${name}\n  labels:\n    batch: one\n`,
        ),
      ]);
    }
    const deleted = await ok(["delete", "teams", "-l", "batch=one"]);
    assert.match(deleted, /team\.management\.platform "p1" deleted/);
    assert.match(deleted, /team\.management\.platform "p2" deleted/);
    const left = await kubectl(["get", "teams", "-l", "batch=one"]);
    assert.equal(left.code, 0);
    assert.match(left.stderr, /No resources found/);
  });
}
