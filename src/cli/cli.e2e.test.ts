import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { request as httpsRequest } from "node:https";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { type CliRun, PLATFORM_BIN, runCli } from "../testing/cli-run.js";
import { kubectlBinaries } from "../testing/kubectl-binaries.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { waitFor } from "../testing/wait-for.js";

/** bin/platform.js of this checkout (dist/cli/ → repo root). */
const BIN = PLATFORM_BIN;

type Run = CliRun;

/** The real executable, run as a user would (src/testing/cli-run.ts). */
function cli(
  home: string,
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  return runCli(home, args, options.env, options.input);
}

/** A failed run: exit 1, the message on stderr, and never a stack trace. */
function assertFailed(r: Run, message: RegExp): void {
  assert.equal(r.code, 1, `exit code; stderr: ${r.stderr}`);
  assert.match(r.stderr, message);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
}

function assertOk(r: Run): void {
  assert.equal(r.code, 0, `exit code; stderr: ${r.stderr}`);
}

const newHome = () => mkdtempSync(join(tmpdir(), "platform-cli-"));

describe("platform CLI against a real server", () => {
  let server: TestServer;
  let home: string;
  let caFile: string;
  const homes: string[] = [];
  const login = (h: string, key: string) =>
    cli(h, ["login", server.url, "--access-key", key, "--certificate-authority", caFile]);

  before(async () => {
    server = await startTestServer();
    caFile = join(server.dataDir, "ca.crt");
    home = newHome();
    homes.push(home);
    assertOk(await login(home, server.adminKey));
  });
  after(async () => {
    await server.stop();
    for (const h of homes) rmSync(h, { recursive: true, force: true });
  });

  it("login stores a new Login-type key in a 0600 config, and whoami names the user", async () => {
    const cfgFile = join(home, "config.json");
    assert.equal(statSync(cfgFile).mode & 0o777, 0o600);
    const cfg = JSON.parse(readFileSync(cfgFile, "utf8"));
    assert.notEqual(cfg.login.accessKey, server.adminKey, "the given key is not stored");
    assert.equal(cfg.login.createdByLogin, true);
    const key = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${cfg.login.accessKeyName}`);
    assert.equal(key.status, 200);
    assert.equal(key.json.spec.type, "Login");
    assert.equal(key.json.spec.user, "admin");

    const who = await cli(home, ["whoami"]);
    assertOk(who);
    assert.match(who.stdout, /^user admin$/m);
    assert.match(who.stdout, new RegExp(`access key:\\s+${cfg.login.accessKeyName} \\(Login\\)`));
    const json = await cli(home, ["whoami", "-o", "json"]);
    assertOk(json);
    assert.equal(JSON.parse(json.stdout).status.user, "admin");
  });

  it("login: a wrong key is refused with the server's message and nothing is stored", async () => {
    const h = newHome();
    homes.push(h);
    const r = await login(h, "not-a-real-key-0123456789abcdefghijklmnop");
    assertFailed(r, /Unauthorized: the access key was refused/);
    assert.equal(existsSync(join(h, "config.json")), false);
  });

  it("login: TLS is verified (unknown CA refused), --insecure-skip-tls-verify and PLATFORM_ACCESS_KEY work", async () => {
    const h = newHome();
    homes.push(h);
    const untrusted = await cli(h, ["login", server.url, "--access-key", server.adminKey]);
    assertFailed(untrusted, /cannot verify the certificate.*--certificate-authority/);
    const insecure = await cli(h, ["login", `${server.url}/kubernetes/management/`, "--insecure-skip-tls-verify"], {
      env: { PLATFORM_ACCESS_KEY: server.adminKey },
    });
    assertOk(insecure);
    assertOk(await cli(h, ["whoami"]));
    assertOk(await cli(h, ["logout"]));
  });

  it("usage errors exit 2; --help shows examples and exits 0", async () => {
    const unknown = await cli(home, ["frobnicate"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command 'frobnicate'/);
    const missing = await cli(home, ["get", "secret"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /missing required argument/);
    const badOutput = await cli(home, ["list", "users", "-o", "xml"]);
    assert.equal(badOutput.code, 2);
    assert.match(badOutput.stderr, /--output must be json, yaml or table/);
    const noKey = await cli(newHome(), ["login", server.url]);
    assert.equal(noKey.code, 2);
    for (const args of [
      ["get", "secret"],
      ["create", "accesskey"],
      ["connect", "vcluster"],
      ["list", "users"],
      ["login"],
    ]) {
      const help = await cli(home, [...args, "--help"]);
      assert.equal(help.code, 0, args.join(" "));
      assert.match(help.stdout, /Examples:\n {2}platform /, args.join(" "));
    }
  });

  it("secrets: create, get one key and all keys, set (patch and create), missing key, delete", async () => {
    const file = join(home, "cert.pem");
    writeFileSync(file, "PEM DATA\n");
    const created = await cli(home, [
      "create",
      "secret",
      "db",
      "--from-literal",
      "password=s3=cret",
      "--from-literal",
      "user=app",
      "--from-file",
      `tls.crt=${file}`,
    ]);
    assertOk(created);
    assert.match(created.stdout, /sharedsecret platform\/db created \(3 keys\)/);
    const single = await cli(home, ["create", "secret", "single", "--from-literal", "k=v"]);
    assert.match(single.stdout, /sharedsecret platform\/single created \(1 key\)/);
    const stored = await server.request("GET", `${GROUP_PATH}/namespaces/platform/sharedsecrets/db`);
    assert.equal(stored.json.spec.data.password, Buffer.from("s3=cret").toString("base64"));

    const one = await cli(home, ["get", "secret", "db.password"]);
    assertOk(one);
    assert.equal(one.stdout, "s3=cret", "the value as is, no newline when piped");
    const dotted = await cli(home, ["get", "secret", "db.tls.crt"]);
    assert.equal(dotted.stdout, "PEM DATA\n");

    const all = await cli(home, ["get", "secret", "db"]);
    assertOk(all);
    assert.match(all.stdout, /^KEY\s+VALUE\n/);
    assert.match(all.stdout, /^password\s+s3=cret$/m);
    assert.ok(!all.stdout.includes("\u001b["), "no colour when not on a terminal");
    const asJson = await cli(home, ["get", "secret", "db", "-o", "json"]);
    assert.deepEqual(JSON.parse(asJson.stdout), { password: "s3=cret", user: "app", "tls.crt": "PEM DATA\n" });
    const asYaml = await cli(home, ["get", "secret", "db", "-o", "yaml"]);
    assert.equal(parse(asYaml.stdout).user, "app");

    const missingKey = await cli(home, ["get", "secret", "db.nope"]);
    assertFailed(missingKey, /shared secret platform\/db has no key "nope" \(keys: password, user, tls\.crt\)/);

    assertOk(await cli(home, ["set", "secret", "db", "password", "changed"]));
    assert.equal((await cli(home, ["get", "secret", "db.password"])).stdout, "changed");
    // The shape `get secret NAME.KEY` reads.
    assertOk(await cli(home, ["set", "secret", "db.password", "again"]));
    assert.equal((await cli(home, ["get", "secret", "db.password"])).stdout, "again");
    const noKey = await cli(home, ["set", "secret", "db", "again"]);
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /set secret takes NAME\.KEY VALUE/);
    assert.equal((await cli(home, ["get", "secret", "db.user"])).stdout, "app", "other keys untouched");
    const fromStdin = await cli(home, ["set", "secret", "fresh", "token", "-", "-n", "platform"], {
      input: "from-stdin",
    });
    assertOk(fromStdin);
    assert.match(fromStdin.stdout, /created with key token/);
    assert.equal((await cli(home, ["get", "secret", "fresh.token"])).stdout, "from-stdin");

    const list = await cli(home, ["list", "secrets"]);
    assertOk(list);
    assert.match(list.stdout, /^NAMESPACE\s+NAME\s+DISPLAY NAME\s+KEYS\s+AGE$/m);
    assert.match(list.stdout, /^platform\s+db\s+3\s+/m);

    assertOk(await cli(home, ["delete", "secret", "db"]));
    assertOk(await cli(home, ["delete", "secret", "fresh"]));
    const gone = await cli(home, ["get", "secret", "db.password"]);
    assertFailed(gone, /sharedsecrets\.management\.platform "db" not found/);
    const goneDelete = await cli(home, ["delete", "secret", "db"]);
    assertFailed(goneDelete, /"db" not found/);
  });

  it("access keys: create prints the key once on stdout, it logs in, list shows it, delete revokes it", async () => {
    const created = await cli(home, ["create", "accesskey", "ci", "--ttl", "30d", "--description", "CI"]);
    assertOk(created);
    const key = created.stdout.trim();
    assert.match(key, /^[A-Za-z0-9]{40,}$/);
    assert.match(created.stderr, /access key ci created for user admin \(expires in 30d\)/);
    const stored = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/ci`);
    assert.equal(stored.json.spec.ttl, 30 * 86400);
    assertOk(await cli(home, ["create", "accesskey", "ci-2", "--expire-after", "12h"]));
    assert.equal((await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/ci-2`)).json.spec.ttl, 12 * 3600);

    const scoped = await cli(home, [
      "create",
      "accesskey",
      "scoped",
      "--scope-project",
      "web",
      "--allow-cli",
      "-o",
      "json",
    ]);
    assertOk(scoped);
    const scopedKey = JSON.parse(scoped.stdout);
    assert.deepEqual(scopedKey.spec.scope, { projects: [{ project: "web" }], allowPlatformCli: true });
    // A login with a scoped key makes a session key with that same scope, never a wider one.
    const scopedHome = newHome();
    homes.push(scopedHome);
    assertOk(await login(scopedHome, scopedKey.spec.key));
    const session = JSON.parse(readFileSync(join(scopedHome, "config.json"), "utf8")).login.accessKeyName;
    const sessionKey = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${session}`);
    assert.deepEqual(sessionKey.json.spec.scope, scopedKey.spec.scope);

    const list = await cli(home, ["list", "accesskeys"]);
    assertOk(list);
    assert.match(list.stdout, /^NAME\s+SUBJECT\s+TYPE\s+DISABLED\s+EXPIRES/m);
    assert.match(list.stdout, /^ci\s+user:admin\s+User\s+false\s+\d{4}-/m);
    const listJson = JSON.parse((await cli(home, ["list", "accesskeys", "--user", "admin", "-o", "json"])).stdout);
    assert.ok(listJson.items.some((k: { metadata: { name: string } }) => k.metadata.name === "ci"));
    assert.ok(
      listJson.items.every((k: { spec: { key?: string } }) => k.spec.key === undefined),
      "keys never shown",
    );

    const h = newHome();
    homes.push(h);
    assertOk(await login(h, key));
    assertOk(await cli(home, ["delete", "accesskey", "ci"]));
    assertOk(await cli(home, ["delete", "accesskey", "scoped"]));
    // The session key made from "ci" lives on its own; a fresh login with the deleted key is refused.
    assertFailed(await login(newHome(), key), /Unauthorized/);
    const both = await cli(home, ["create", "accesskey", "--user", "a", "--team", "b"]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--user and --team exclude each other/);
    const badTtl = await cli(home, ["create", "accesskey", "--ttl", "soon"]);
    assert.equal(badTtl.code, 2);
  });

  it("list users, teams, clusters, projects, vclusters as tables and json", async () => {
    const mk = async (path: string, kind: string, name: string, spec: object) => {
      const r = await server.request("POST", `${GROUP_PATH}/${path}`, {
        body: { apiVersion: "management.platform/v1", kind, metadata: { name }, spec },
      });
      assert.equal(r.status, 201, r.text);
    };
    await mk("users", "User", "alice", { displayName: "Alice", email: "alice@example.com" });
    await mk("teams", "Team", "ops", { displayName: "Ops", users: ["alice"] });
    await mk("clusters", "Cluster", "prod", { displayName: "Prod", config: { secretName: "prod-kubeconfig" } });
    await mk("projects", "Project", "web", { displayName: "Web" });
    await mk("namespaces/p-web/virtualclusterinstances", "VirtualClusterInstance", "dev", { displayName: "Dev" });

    const cases: [string, RegExp][] = [
      ["users", /^alice\s+Alice\s+alice@example\.com/m],
      ["teams", /^ops\s+/m],
      ["clusters", /^prod\s+/m],
      ["projects", /^web\s+/m],
      ["vclusters", /^web\s+dev\s+/m],
    ];
    for (const [noun, row] of cases) {
      const table = await cli(home, ["list", noun]);
      assertOk(table);
      assert.match(table.stdout, /^[A-Z][A-Z ]+\S/, noun);
      assert.match(table.stdout, row, noun);
      const json = await cli(home, ["list", noun, "-o", "json"]);
      assertOk(json);
      assert.match(JSON.parse(json.stdout).kind, /List$/, noun);
      const yaml = await cli(home, ["list", noun, "-o", "yaml"]);
      assert.ok(Array.isArray(parse(yaml.stdout).items), noun);
    }
    const inProject = await cli(home, ["list", "vclusters", "--project", "web"]);
    assert.match(inProject.stdout, /^NAME\s+/);
    assert.match(inProject.stdout, /^dev\s+/m);
    const empty = await cli(home, ["list", "vclusters", "--project", "nothing"]);
    assertOk(empty);
    assert.equal(empty.stdout, "");
    assert.match(empty.stderr, /No virtual cluster instances found in nothing/);
  });

  it("no access: a key whose user is disabled is refused", async () => {
    const bob = await server.request("POST", `${GROUP_PATH}/users`, {
      body: { apiVersion: "management.platform/v1", kind: "User", metadata: { name: "bob" }, spec: {} },
    });
    assert.equal(bob.status, 201);
    const key = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: {
        apiVersion: "management.platform/v1",
        kind: "OwnedAccessKey",
        metadata: { name: "bob-key" },
        spec: { user: "bob" },
      },
    });
    const h = newHome();
    homes.push(h);
    assertOk(await login(h, key.json.spec.key));
    assert.match((await cli(h, ["whoami"])).stdout, /^user bob$/m);
    const disabled = await server.request("PATCH", `${GROUP_PATH}/users/bob`, {
      body: { spec: { disabled: true } },
      contentType: "application/merge-patch+json",
    });
    assert.equal(disabled.status, 200, disabled.text);
    assertFailed(await cli(h, ["list", "secrets"]), /Unauthorized: the access key was refused.*platform login/);
  });

  it("expired login: a key past its ttl is refused with a hint to log in again", async () => {
    const created = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: {
        apiVersion: "management.platform/v1",
        kind: "OwnedAccessKey",
        metadata: { name: "short" },
        spec: { user: "admin", ttl: 1, type: "Login" },
      },
    });
    assert.equal(created.status, 201);
    const key = created.json.spec.key as string;
    // Wait (bounded) until the server itself considers the key expired; ttl counts in whole seconds.
    await waitFor(
      "the expired key refused",
      async () =>
        (
          await server.request("POST", `${GROUP_PATH}/selves`, {
            token: key,
            body: { apiVersion: "management.platform/v1", kind: "Self", metadata: {} },
          })
        ).status,
      (status) => status === 401,
    );
    const h = newHome();
    homes.push(h);
    writeFileSync(
      join(h, "config.json"),
      JSON.stringify({
        login: {
          server: server.url,
          accessKey: key,
          accessKeyName: "short",
          createdByLogin: true,
          certificateAuthorityData: server.caPem,
        },
      }),
      { mode: 0o600 },
    );
    assertFailed(await cli(h, ["whoami"]), /expired/);
    // logout still succeeds: a refused key is as good as revoked for this client.
    assertOk(await cli(h, ["logout"]));
    assert.equal(existsSync(join(h, "config.json")), false);
  });

  it("server down: a closed port gives 'connection refused', not a stack trace", async () => {
    const probe = createNetServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const h = newHome();
    homes.push(h);
    writeFileSync(
      join(h, "config.json"),
      JSON.stringify({ login: { server: `https://127.0.0.1:${port}`, accessKey: "x".repeat(40) } }),
      {
        mode: 0o600,
      },
    );
    assertFailed(
      await cli(h, ["list", "users"]),
      new RegExp(`cannot reach https://127\\.0\\.0\\.1:${port}: connection refused`),
    );
    assertFailed(
      await cli(h, ["login", `https://127.0.0.1:${port}`, "--access-key", server.adminKey]),
      /connection refused/,
    );
  });

  it("not logged in: a clear message", async () => {
    assertFailed(
      await cli(newHome(), ["list", "users"]),
      /not logged in: run `platform login URL --access-key KEY` first/,
    );
  });

  it("use management writes a kubectl context that reaches the management API with the login's key", async () => {
    const h = newHome();
    homes.push(h);
    assertOk(await login(h, server.adminKey));
    writeFileSync(
      join(h, "kubeconfig"),
      "apiVersion: v1\nkind: Config\ncontexts:\n- name: other\n  context: {cluster: x, user: y}\ncurrent-context: other\n",
    );
    const r = await cli(h, ["use", "management"]);
    assertOk(r);
    const kc = parse(readFileSync(join(h, "kubeconfig"), "utf8"));
    assert.equal(statSync(join(h, "kubeconfig")).mode & 0o777, 0o600);
    // Named after the server, so another server's entries never share the name.
    const name = `platform@${new URL(server.url).host}`;
    assert.equal(kc["current-context"], name);
    assert.ok(
      kc.contexts.some((c: { name: string }) => c.name === "other"),
      "other contexts kept",
    );
    const cluster = kc.clusters.find((c: { name: string }) => c.name === name).cluster;
    // No key in the kubeconfig: kubectl asks `platform token`, which reads the CLI's 0600 config.
    const exec = kc.users.find((u: { name: string }) => u.name === name).user.exec;
    // v1beta1: kubectl before 1.22 refuses v1.
    assert.equal(exec.apiVersion, "client.authentication.k8s.io/v1beta1");
    assert.deepEqual(exec.args, ["token", "--server", server.url]);
    assert.deepEqual(exec.env, [{ name: "PLATFORM_CONFIG", value: join(h, "config.json") }]);
    assert.doesNotMatch(readFileSync(join(h, "kubeconfig"), "utf8"), new RegExp(server.adminKey));
    const credential = JSON.parse((await cli(h, ["token"])).stdout);
    assert.equal(credential.kind, "ExecCredential");
    const token = credential.status.token as string;
    assert.ok(token.length >= 40, "the login's key");
    // kubectl itself runs the plugin: every kubectl the tests know, 1.20 included.
    for (const { minor, path } of kubectlBinaries()) {
      const kubectl = await new Promise<{ code: number | null; out: string; err: string }>((done) => {
        const child = spawn(path, ["--kubeconfig", join(h, "kubeconfig"), "get", "users", "-o", "name"], {
          env: { PATH: process.env.PATH ?? "", HOME: h },
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
        });
        child.stderr.on("data", (d: Buffer) => {
          err += d.toString();
        });
        child.on("close", (code) => done({ code, out, err }));
      });
      assert.equal(kubectl.code, 0, `kubectl 1.${minor}: ${kubectl.err}`);
      assert.match(kubectl.out, /^user\.management\.platform\/admin$/m);
    }
    // --inline-key: the key itself, for CI.
    assertOk(await cli(h, ["use", "management", "--inline-key", "--context-name", "ci", "--no-switch"]));
    const inline = parse(readFileSync(join(h, "kubeconfig"), "utf8"));
    assert.equal(inline.users.find((u: { name: string }) => u.name === "ci").user.token, token);
    assert.equal(inline["current-context"], name);
    assert.equal(cluster.server, `${server.url}/kubernetes/management`);
    // The context as kubectl would use it: its server, its CA, its token.
    const body = await new Promise<string>((done, fail) => {
      const req = httpsRequest(
        `${cluster.server}/apis/management.platform/v1/users`,
        {
          ca: Buffer.from(cluster["certificate-authority-data"], "base64").toString(),
          headers: { authorization: `Bearer ${token}` },
        },
        (res) => {
          let t = "";
          res.on("data", (d: Buffer) => {
            t += d.toString();
          });
          res.on("end", () => (res.statusCode === 200 ? done(t) : fail(new Error(`${res.statusCode} ${t}`))));
        },
      );
      req.on("error", fail);
      req.end();
    });
    assert.equal(JSON.parse(body).kind, "UserList");
  });

  it("logout deletes the Login key it created and forgets the login", async () => {
    const h = newHome();
    homes.push(h);
    assertOk(await login(h, server.adminKey));
    const name = JSON.parse(readFileSync(join(h, "config.json"), "utf8")).login.accessKeyName;
    assert.equal((await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${name}`)).status, 200);
    const out = await cli(h, ["logout"]);
    assertOk(out);
    assert.equal((await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${name}`)).status, 404);
    assert.equal(existsSync(join(h, "config.json")), false);
    assertFailed(await cli(h, ["whoami"]), /not logged in/);
    // --reuse-key stores the given key; logout then leaves the key alone.
    assertOk(
      await cli(h, [
        "login",
        server.url,
        "--access-key",
        server.adminKey,
        "--certificate-authority",
        caFile,
        "--reuse-key",
      ]),
    );
    assertOk(await cli(h, ["logout"]));
    assertOk(await login(h, server.adminKey));
  });

  it("connect, import and move show the server's Status message when the action fails", async () => {
    // The actions are served (decisions §4); here each one fails on the server, and the client must
    // show the Status message, exit 1 and print no stack.
    const cases: Array<[string[], RegExp]> = [
      [["connect", "vcluster", "dev", "--project", "web"], /not found|has no spec\.clusterRef|ingress/],
      [
        ["import", "vcluster", "dev", "--cluster", "prod", "--namespace", "vc", "--project", "web"],
        /not found|cannot be used/,
      ],
      [["move", "vcluster", "nosuch", "--from", "web", "--to", "shop"], /not found/],
    ];
    for (const [args, message] of cases) {
      assertFailed(await cli(home, args), message);
    }
    const usage = await cli(home, ["import", "vcluster", "dev", "--cluster", "prod"]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /required option '--namespace <namespace>' not specified/);
  });

  it("completion: bash and zsh scripts that know the commands; bash parses it", async () => {
    const bash = await cli(home, ["completion", "bash"]);
    assertOk(bash);
    assert.match(bash.stdout, /complete -o default -F _platform platform/);
    assert.match(bash.stdout, /"get secret"\) words="[^"]*--namespace/);
    const file = join(home, "completion.bash");
    writeFileSync(file, bash.stdout);
    const check = await new Promise<number | null>((done) => spawn("bash", ["-n", file]).on("close", done));
    assert.equal(check, 0);
    const zsh = await cli(home, ["completion", "zsh"]);
    assertOk(zsh);
    assert.match(zsh.stdout, /^#compdef platform/);
    const fish = await cli(home, ["completion", "fish"]);
    assertOk(fish);
    assert.match(
      fish.stdout,
      /^complete -c platform -f -n "__platform_is 'get secret'" -a '\(platform __complete-names secrets \(__platform_scope\) 2>\/dev\/null\)'$/m,
    );
    assert.match(
      fish.stdout,
      /^complete -c platform -f -n "__platform_is 'list vclusters'" -s p -r -a '\(platform __complete-names projects 2>\/dev\/null\)'$/m,
    );
    assert.equal((await cli(home, ["completion", "tcsh"])).code, 2);
  });

  it("completion offers object names from the server (bash, run for real)", async () => {
    for (const name of ["web", "shop"]) {
      const res = await server.request("POST", `${GROUP_PATH}/projects`, {
        body: { apiVersion: "management.platform/v1", kind: "Project", metadata: { name }, spec: {} },
      });
      assert.ok(res.status === 201 || res.status === 409, res.text);
    }
    const secret = await server.request("POST", `${GROUP_PATH}/namespaces/platform/sharedsecrets`, {
      body: { apiVersion: "management.platform/v1", kind: "SharedSecret", metadata: { name: "tab-db" }, spec: {} },
    });
    assert.equal(secret.status, 201, secret.text);
    assert.equal((await cli(home, ["__complete-names", "projects"])).stdout.split("\n").includes("web"), true);
    // `platform` on PATH, as an installed CLI is.
    const bin = join(home, "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(BIN, join(bin, "platform"));
    const script = join(home, "completion.bash");
    writeFileSync(script, (await cli(home, ["completion", "bash"])).stdout);
    const complete = async (line: string) => {
      const words = line.split(" ");
      const r = await new Promise<{ out: string; err: string }>((done) => {
        const child = spawn(
          "bash",
          [
            "-c",
            `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _platform; printf '%s\\n' "\${COMPREPLY[@]}"`,
          ],
          {
            env: {
              PATH: `${bin}:${process.env.PATH ?? ""}`,
              HOME: home,
              PLATFORM_CONFIG: join(home, "config.json"),
            },
          },
        );
        let out = "";
        let err = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
        });
        child.stderr.on("data", (d: Buffer) => {
          err += d.toString();
        });
        child.on("close", () => done({ out, err }));
      });
      return r.out.split("\n").filter(Boolean).sort();
    };
    assert.deepEqual(await complete("platform list vclusters --project s"), ["shop"]);
    assert.deepEqual(await complete("platform get secret tab-"), ["tab-db"]);
    assert.deepEqual(await complete("platform get "), ["--help", "secret"]);
  });
});

/** A stand-in for the endpoints being built elsewhere, answering in the shapes decisions §4 fixes. */
describe("platform CLI against a stub of the action endpoints", () => {
  let stub: Server;
  let url: string;
  let home: string;
  const seen: { method: string; url: string; body: unknown }[] = [];
  const kubeConfig = `apiVersion: v1
kind: Config
clusters:
- name: vcluster
  cluster:
    server: https://dev.web.vc.example.com
    certificate-authority-data: Q0E=
users:
- name: alice
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
contexts:
- name: vcluster
  context: {cluster: vcluster, user: alice}
current-context: vcluster
`;

  before(async () => {
    stub = createHttpServer((req: IncomingMessage, res) => {
      let text = "";
      req.on("data", (d: Buffer) => {
        text += d.toString();
      });
      req.on("end", () => {
        const body = text ? JSON.parse(text) : undefined;
        seen.push({ method: req.method ?? "", url: req.url ?? "", body });
        res.setHeader("content-type", "application/json");
        if (req.url?.endsWith("/kubeconfig")) {
          res.end(JSON.stringify({ ...body, metadata: { name: "dev", namespace: "p-web" }, status: { kubeConfig } }));
        } else if (req.url?.includes("/virtualclusterinstances/dev/kubeconfig?")) {
          res.end(
            JSON.stringify({
              kind: "VirtualClusterInstanceKubeConfig",
              metadata: { name: "dev", namespace: "p-web" },
              status: { kubeConfig },
            }),
          );
        } else if (req.url?.endsWith("/importvirtualcluster") || req.url?.endsWith("/migratevirtualclusterinstance")) {
          res.statusCode = 201;
          res.end(JSON.stringify(body));
        } else {
          res.statusCode = 409;
          res.end(
            JSON.stringify({
              kind: "Status",
              status: "Failure",
              reason: "Conflict",
              code: 409,
              message: "stub: unexpected request",
            }),
          );
        }
      });
    });
    await new Promise<void>((r) => stub.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(stub.address() as { port: number }).port}`;
    home = newHome();
    writeFileSync(join(home, "config.json"), JSON.stringify({ login: { server: url, accessKey: "stub-key" } }), {
      mode: 0o600,
    });
  });
  after(async () => {
    await new Promise<void>((r) => stub.close(() => r()));
    rmSync(home, { recursive: true, force: true });
  });

  it("connect vcluster posts a VirtualClusterInstanceKubeConfig and merges the answer as a new current context", async () => {
    seen.length = 0;
    const r = await cli(home, ["connect", "vcluster", "dev", "--project", "web", "--certificate-ttl", "1h"]);
    assertOk(r);
    assert.equal(seen[0]?.method, "POST");
    assert.equal(
      seen[0]?.url,
      "/kubernetes/management/apis/management.platform/v1/namespaces/p-web/virtualclusterinstances/dev/kubeconfig",
    );
    assert.deepEqual((seen[0]!.body as { kind: string; spec: unknown }).spec, { certificateTTL: 3600 });
    assert.equal((seen[0]!.body as { kind: string }).kind, "VirtualClusterInstanceKubeConfig");
    const kc = parse(readFileSync(join(home, "kubeconfig"), "utf8"));
    assert.equal(kc["current-context"], `platform-web-dev@${new URL(url).host}`);
    assert.equal(kc.clusters[0].cluster.server, "https://dev.web.vc.example.com");
    assert.equal(kc.users[0].user["client-key-data"], "S0VZ");

    const printed = await cli(home, ["connect", "vcluster", "dev", "--print", "--certificate-ttl", "0"]);
    assertOk(printed);
    assert.equal(printed.stdout, kubeConfig);
    assert.equal(
      seen[1]?.url,
      "/kubernetes/management/apis/management.platform/v1/virtualclusterinstances/dev/kubeconfig?certificateTTL=0",
    );
  });

  it("import and move send the action bodies of decisions §4", async () => {
    seen.length = 0;
    assertOk(
      await cli(home, [
        "import",
        "vcluster",
        "dev",
        "--cluster",
        "prod",
        "--namespace",
        "vc-dev",
        "--project",
        "web",
        "--import-name",
        "dev2",
      ]),
    );
    assert.equal(seen[0]?.url, "/kubernetes/management/apis/management.platform/v1/projects/web/importvirtualcluster");
    assert.deepEqual((seen[0]!.body as { sourceVirtualCluster: unknown }).sourceVirtualCluster, {
      name: "dev",
      namespace: "vc-dev",
      cluster: "prod",
      importName: "dev2",
    });
    const moved = await cli(home, ["move", "vcluster", "dev", "--from", "web", "--to", "shop"]);
    assertOk(moved);
    assert.match(moved.stdout, /vcluster dev moved from project web to shop/);
    assert.equal(
      seen[1]?.url,
      "/kubernetes/management/apis/management.platform/v1/projects/shop/migratevirtualclusterinstance",
    );
    assert.deepEqual((seen[1]!.body as { sourceVirtualClusterInstance: unknown }).sourceVirtualClusterInstance, {
      name: "dev",
      namespace: "p-web",
    });
  });

  it("a Status error from the server is shown as its message", async () => {
    const r = await cli(home, ["list", "users"]);
    assertFailed(r, /^error: stub: unexpected request\n$/);
  });
});
