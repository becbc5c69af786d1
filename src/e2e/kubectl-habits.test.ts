import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * The client-go habits of kubectl v1.32 beyond get/apply: auth can-i --list (SelfSubjectRulesReview),
 * diff, wait --for, get --watch-only, --chunk-size, -o jsonpath / custom-columns and --raw.
 */
const KUBECTL = process.env.KUBECTL ?? "/usr/bin/kubectl";
const APIV = "management.platform/v1";

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

describe("kubectl habits", () => {
  let server: TestServer;
  let env: NodeJS.ProcessEnv;
  let admin: string;
  let bob: string;

  const kubectl = (kubeconfig: string, args: string[]): Promise<Result> =>
    new Promise((resolve) => {
      execFile(KUBECTL, ["--kubeconfig", kubeconfig, ...args], { env, timeout: 20_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout: stdout.toString(), stderr: stderr.toString() });
      });
    });
  const ok = async (kubeconfig: string, args: string[]): Promise<string> => {
    const r = await kubectl(kubeconfig, args);
    assert.equal(r.code, 0, `kubectl ${args.join(" ")} failed: ${r.stderr}`);
    return r.stdout;
  };
  const post = async (path: string, body: unknown) => {
    const res = await server.request("POST", `${GROUP_PATH}/${path}`, { body });
    assert.equal(res.status, 201, res.text);
    return res.json;
  };

  before(async () => {
    server = await startTestServer();
    env = { PATH: process.env.PATH, HOME: server.dataDir, KUBECONFIG: "" };
    admin = server.kubeconfig();
    await post("users", {
      apiVersion: APIV,
      kind: "User",
      metadata: { name: "bob" },
      spec: { email: "bob@example.com" },
    });
    const key = await post("ownedaccesskeys", {
      apiVersion: APIV,
      kind: "OwnedAccessKey",
      metadata: { name: "bob-key" },
      spec: { user: "bob" },
    });
    bob = server.kubeconfig(key.spec.key);
    const secret = (name: string, access: unknown[]) => ({
      apiVersion: APIV,
      kind: "SharedSecret",
      metadata: { name, namespace: "platform" },
      spec: { data: { a: "Yg==" }, access },
    });
    await post("namespaces/platform/sharedsecrets", secret("db", [{ verbs: ["get", "update"], users: ["bob"] }]));
    await post("namespaces/platform/sharedsecrets", secret("hidden", []));
  });
  after(() => server.stop());

  it("auth can-i --list shows an admin everything and a user the single objects shared with them", async () => {
    const all = await ok(admin, ["auth", "can-i", "--list", "-n", "platform"]);
    assert.match(
      all,
      /^sharedsecrets\.management\.platform\s+\[\]\s+\[\]\s+\[create delete deletecollection get list/m,
    );
    const mine = await ok(bob, ["auth", "can-i", "--list", "-n", "platform"]);
    assert.match(mine, /^sharedsecrets\.management\.platform\s+\[\]\s+\[db\]\s+\[get update\]$/m);
    assert.match(mine, /^users\.management\.platform\s+\[\]\s+\[bob\]\s+\[get\]$/m);
    // Events: everyone reads them (each filtered to its object), nobody writes them.
    assert.match(mine, /^events\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    assert.match(mine, /^ownedaccesskeys\.management\.platform\s+\[\]\s+\[bob-key\]\s+\[delete get patch update\]$/m);
    // Nothing about objects bob holds no right on, and no create on users.
    assert.doesNotMatch(mine, /hidden/);
    assert.doesNotMatch(mine, /^users\.management\.platform\s+\[\]\s+\[\]\s+\[create/m);
    assert.equal(
      (await kubectl(bob, ["auth", "can-i", "get", "sharedsecrets/hidden", "-n", "platform"])).stdout.trim(),
      "no",
    );
  });

  it("diff exits 1 with the change and 0 when the object matches", async () => {
    const file = join(server.dataDir, "bob.yaml");
    writeFileSync(
      file,
      `apiVersion: ${APIV}\nkind: User\nmetadata:\n  name: bob\nspec:\n  email: bob@example.com\n  displayName: Bobby\n`,
    );
    const changed = await kubectl(admin, ["diff", "-f", file]);
    assert.equal(changed.code, 1, changed.stderr);
    assert.match(changed.stdout, /^\+ {2}displayName: Bobby$/m);
    await ok(admin, ["apply", "--server-side", "-f", file]);
    const same = await kubectl(admin, ["diff", "-f", file]);
    assert.equal(same.code, 0, same.stdout + same.stderr);
  });

  // As against kube-apiserver: the uid of the file is a precondition of the replace.
  it("replace -f of a copy of an object since deleted and made again is a Conflict on its uid", async () => {
    const file = join(server.dataDir, "ops.yaml");
    writeFileSync(file, `apiVersion: ${APIV}\nkind: Team\nmetadata:\n  name: ops\nspec:\n  displayName: Ops\n`);
    await ok(admin, ["create", "-f", file]);
    const copy = join(server.dataDir, "ops-copy.yaml");
    const old = await ok(admin, ["get", "team", "ops", "-o", "yaml"]);
    writeFileSync(copy, old.replace("displayName: Ops", "displayName: Old copy"));
    const oldUid = await ok(admin, ["get", "team", "ops", "-o", "jsonpath={.metadata.uid}"]);
    await ok(admin, ["delete", "team", "ops"]);
    await ok(admin, ["create", "-f", file]);
    const newUid = await ok(admin, ["get", "team", "ops", "-o", "jsonpath={.metadata.uid}"]);
    const stale = await kubectl(admin, ["replace", "-f", copy]);
    assert.equal(stale.code, 1, stale.stdout);
    assert.match(stale.stderr, /^Error from server \(Conflict\): error when replacing ".*ops-copy\.yaml": /);
    assert.ok(
      stale.stderr.includes(
        'Operation cannot be fulfilled on teams.management.platform "ops": StorageError: invalid object, Code: 4, ' +
          "Key: /registry/management.platform/teams/ops, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: " +
          `UID in precondition: ${oldUid}, UID in object meta: ${newUid}`,
      ),
      stale.stderr,
    );
    assert.equal(await ok(admin, ["get", "team", "ops", "-o", "jsonpath={.spec.displayName}"]), "Ops");
  });

  it("patch --type json replacing a field the object lacks sets it, as on kube-apiserver", async () => {
    const replace = '[{"op":"replace","path":"/spec/description","value":"Set by replace"}]';
    assert.match(await ok(admin, ["patch", "user", "bob", "--type", "json", "-p", replace]), /bob patched/);
    assert.equal(await ok(admin, ["get", "user", "bob", "-o", "jsonpath={.spec.description}"]), "Set by replace");
    const missingParent = '[{"op":"replace","path":"/spec/clusterRoles/0/name","value":"x"}]';
    const refused = await kubectl(admin, ["patch", "user", "bob", "--type", "json", "-p", missingParent]);
    assert.equal(refused.code, 1);
    // A missing parent is refused, as there; kubectl prints the platform's cause naming the operation.
    assert.match(
      refused.stderr,
      /^The request is invalid: patch: operation 0 \(replace "\/spec\/clusterRoles\/0\/name"\)/,
    );
  });

  it("wait --for=jsonpath returns once the field has the value, and times out otherwise", async () => {
    assert.match(
      await ok(admin, ["wait", "--for=jsonpath={.spec.email}=bob@example.com", "user/bob", "--timeout=10s"]),
      /condition met/,
    );
    const late = await kubectl(admin, [
      "wait",
      "--for=jsonpath={.spec.email}=nobody@example.com",
      "user/bob",
      "--timeout=1s",
    ]);
    assert.equal(late.code, 1);
    assert.match(late.stderr, /timed out/);
  });

  it("get --watch-only prints changes only", async () => {
    const child = spawn(KUBECTL, ["--kubeconfig", admin, "get", "users", "--watch-only", "-o", "name"], { env });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    try {
      // The existing users are not printed: only bob, once he changes.
      for (let i = 0; i < 100 && !out.includes("user.management.platform/bob"); i++) {
        await server.request("PATCH", `${GROUP_PATH}/users/bob`, {
          body: { metadata: { labels: { tick: String(i) } } },
          contentType: "application/merge-patch+json",
        });
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      child.kill();
    }
    assert.match(out, /user\.management\.platform\/bob/);
    assert.doesNotMatch(out, /admin/);
  });

  it("--chunk-size pages the list and prints every item", async () => {
    const verbose = await kubectl(admin, ["get", "users", "--chunk-size=1", "-o", "name", "-v=6"]);
    assert.equal(verbose.code, 0, verbose.stderr);
    assert.deepEqual(verbose.stdout.trim().split("\n"), [
      "user.management.platform/admin",
      "user.management.platform/bob",
    ]);
    assert.match(verbose.stderr, /users\?limit=1 200/);
    assert.match(verbose.stderr, /users\?continue=\S+&limit=1 200/);
  });

  it("-o jsonpath and -o custom-columns", async () => {
    assert.equal(await ok(admin, ["get", "users", "-o", "jsonpath={.items[*].metadata.name}"]), "admin bob");
    const cols = await ok(admin, ["get", "users", "-o", "custom-columns=NAME:.metadata.name,EMAIL:.spec.email"]);
    assert.deepEqual(
      cols
        .trim()
        .split("\n")
        .map((l) => l.split(/\s+/)),
      [
        ["NAME", "EMAIL"],
        ["admin", "<none>"],
        ["bob", "bob@example.com"],
      ],
    );
  });

  it("get --raw takes the full path under the API prefix", async () => {
    const list = JSON.parse(
      await ok(admin, ["get", "--raw", "/kubernetes/management/apis/management.platform/v1/users"]),
    );
    assert.equal(list.kind, "UserList");
    assert.match(await ok(admin, ["get", "--raw", "/kubernetes/management/version"]), /"gitVersion"/);
  });
});
