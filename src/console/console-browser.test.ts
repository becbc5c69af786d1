import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page, Route } from "playwright-core";
import { launchChromium, newConsoleContext, seriousAxeViolations, signedInConsole } from "../testing/browser.js";
import { FakeKubeApiServer } from "../testing/fake-kube-apiserver.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";
import { SESSION_COOKIE } from "./sessions.js";

/** Set CONSOLE_SCREENSHOTS=docs/console to refresh the screenshots of docs/console.md. */
const SHOTS = process.env.CONSOLE_SCREENSHOTS;
const XSS_IMG = `<img src=x onerror="window.__xss=1">`;
const XSS_SCRIPT = `<script>window.__xss=1</script>`;
const b64 = (s: string) => Buffer.from(s).toString("base64");

/**
 * The console in a real browser. The connected cluster is a stand-in
 * (testing/fake-kube-apiserver.ts): the pages are under test, and the virtual cluster they show
 * would need a pod, which never runs on a test machine.
 */
describe("web console in Chromium", { timeout: 480_000 }, () => {
  let server: TestServer;
  let kube: FakeKubeApiServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let viewerKey: string;
  const axeFindings: string[] = [];

  before(async () => {
    kube = await FakeKubeApiServer.start();
    await kube.addVirtualCluster("team-a", "dev");
    server = await startTestServer({ clusterCheckIntervalMs: 1000, allowLocalEndpoints: true });
    browser = await launchChromium();
    context = await newConsoleContext(browser);
    page = await context.newPage();
    page.on("dialog", (d) => {
      axeFindings.push(`unexpected dialog: ${d.message()}`);
      void d.dismiss();
    });
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await kube?.stop();
  });

  /** axe on the page as it is now; findings are collected and asserted empty at the end. */
  async function audit(name: string, shot = false): Promise<void> {
    await settled(page);
    for (const v of await seriousAxeViolations(page)) {
      axeFindings.push(`${name}: ${v.id} (${v.impact}) ${v.help} at ${JSON.stringify(v.nodes[0]?.target)}`);
    }
    if (shot && SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  /** The page knows what the user may do (sections are aria-busy until then) and has loaded. */
  async function settled(p: Page): Promise<void> {
    // Polled from here: waitForFunction may evaluate the predicate in a way the page's CSP refuses.
    const check = "!document.querySelector('[aria-busy=true]') && !document.body.innerText.includes('Loading…')";
    for (let i = 0; i < 200; i++) {
      if (await p.evaluate(check)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail("the page did not settle");
  }

  async function go(path: string): Promise<void> {
    await page.goto(`${server.url}/console${path}`);
  }

  async function signInAs(key: string): Promise<void> {
    await go("/");
    await page.getByLabel("Access key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Signed in as").waitFor();
  }

  async function submitForm(button = "Create"): Promise<void> {
    await page.getByRole("button", { name: button, exact: true }).click();
  }

  it("signs in with an access key into an HttpOnly, Secure, SameSite=Strict session", async () => {
    await go("/");
    await audit("sign-in", true);
    await signInAs(server.adminKey);
    const cookie = (await context.cookies()).find((c) => c.name === SESSION_COOKIE);
    assert.ok(cookie, "session cookie set");
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.secure, true);
    assert.equal(cookie.sameSite, "Strict");
    assert.ok(!cookie.value.includes(server.adminKey));
    const stored = String(
      await page.evaluate("JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })"),
    );
    assert.ok(!stored.includes(server.adminKey), "the key is in neither localStorage nor sessionStorage");
    assert.equal(await page.evaluate("document.cookie.includes('platform-session')"), false, "not readable by JS");
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await go("/self");
    await page.getByRole("heading", { name: "Who am I" }).waitFor();
    await page.getByText("admin", { exact: true }).first().waitFor();
    await audit("who-am-i", true);
  });

  it("creates, edits and deletes a team; the server's field errors appear beside the field", async () => {
    await go("/k/teams");
    await page.getByRole("link", { name: "Create", exact: true }).click();
    await page.getByLabel("Name", { exact: true }).fill("Bad_Name");
    await submitForm();
    await page.locator(".field-error").first().waitFor();
    assert.match(
      await page.locator(".field-error").first().innerText(),
      /"Bad_Name" is not valid: a lowercase RFC 1123/,
    );
    // Once, in words: beside the field, not repeated above, without the regex meant for programs.
    const main = await page.locator("main").innerText();
    assert.equal(main.split("lowercase RFC 1123").length - 1, 1, main);
    assert.ok(!main.includes("regex"), main);
    assert.match(await page.getByRole("alert").innerText(), /Not saved: one value needs a change/);
    await audit("team-create-error", true);
    await page.getByLabel("Name", { exact: true }).fill("devs");
    await page.getByLabel("Display name").fill("Developers");
    await page.getByLabel("Members (user names)").fill("alice, bob");
    await page.getByLabel("Labels (key=value, comma separated)").fill("env=dev");
    await submitForm();
    await page.getByRole("heading", { name: /Developers/ }).waitFor();
    // The Users fact is the kind's Table cell, as `kubectl get teams` shows it.
    assert.ok(await page.getByText("alice,bob").isVisible());
    await audit("team-detail", true);
    await page.getByRole("link", { name: "Edit" }).click();
    await page.getByLabel("Display name").fill("Developers (web)");
    // The access[] editor: a rule granting alice get and use.
    await page.getByRole("button", { name: "Add access rule" }).click();
    await page.getByRole("group", { name: "Rule 1: verbs" }).getByLabel("use").check();
    await page.getByLabel("Users (comma separated)").fill("alice");
    await audit("team-edit", true);
    await submitForm("Save");
    await page.getByRole("heading", { name: /Developers \(web\)/ }).waitFor();
    const stored = await server.request("GET", `${GROUP_PATH}/teams/devs`);
    assert.equal(stored.json.spec.displayName, "Developers (web)");
    assert.deepEqual(stored.json.spec.users, ["alice", "bob"]);
    assert.deepEqual(stored.json.metadata.labels, { env: "dev" });
    assert.deepEqual(stored.json.spec.access[0].verbs, ["get", "use"]);
    assert.deepEqual(stored.json.spec.access[0].users, ["alice"]);
    // The list: search, label filter, paging controls.
    await go("/k/teams");
    await page.getByRole("link", { name: "devs" }).waitFor();
    await page.getByLabel("Label selector").fill("env=prod");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByText("Nothing matches this search or label selector.").waitFor();
    await page.getByLabel("Label selector").fill("env=dev");
    await page.getByLabel("Name or display name").fill("web");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByRole("link", { name: "devs" }).waitFor();
    await audit("teams-list", true);
    await deleteThroughUi("/k/teams/devs", `${GROUP_PATH}/teams/devs`);
  });

  /** Opens the detail page, confirms the delete dialog, and checks the object is gone. */
  async function deleteThroughUi(path: string, apiPath: string): Promise<void> {
    await go(path);
    await page.getByRole("button", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Background/);
    await dialog.getByLabel("Objects it owns").selectOption("Foreground");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.waitForURL(/\/console\/k\/[a-z]+$/);
    for (let i = 0; i < 50; i++) {
      if ((await server.request("GET", apiPath)).status === 404) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`${apiPath} still exists`);
  }

  it("creates a user with a cluster role and deletes one", async () => {
    await go("/k/users/new");
    await page.getByLabel("Name", { exact: true }).fill("alice");
    await page.getByLabel("E-mail").fill("not-an-email");
    await submitForm();
    await page.locator(".field-error").first().waitFor();
    await page.getByLabel("E-mail").fill("alice@example.com");
    await page.getByLabel("platform-management-view").check();
    await submitForm();
    await page.getByRole("heading", { name: /alice/ }).waitFor();
    await page.getByText("No access keys. The user can create one", { exact: false }).waitFor();
    await audit("user-detail");
    const alice = await server.request("GET", `${GROUP_PATH}/users/alice`);
    assert.deepEqual(alice.json.spec.clusterRoles, [{ name: "platform-management-view" }]);
    await go("/k/users/new");
    await page.getByLabel("Name", { exact: true }).fill("carol");
    await submitForm();
    await page.getByRole("heading", { name: /carol/ }).waitFor();
    await deleteThroughUi("/k/users/carol", `${GROUP_PATH}/users/carol`);
  });

  it("connects a cluster from a pasted kube config and shows it Connected", async () => {
    await go("/k/clusters");
    await page.getByRole("link", { name: "Connect a cluster" }).click();
    await page.getByLabel("Name", { exact: true }).fill("prod");
    await page.getByLabel("Display name").fill("Production");
    await page.getByLabel("Kube config").fill(kube.kubeconfig());
    await audit("cluster-connect", true);
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByRole("heading", { name: /Production/ }).waitFor();
    await page.getByText("Connected", { exact: true }).first().waitFor({ timeout: 30_000 });
    await audit("cluster-detail", true);
    // How to connect: through the gateway; no agent is recorded yet, so no direct connection.
    await page.getByText("platform use cluster prod", { exact: false }).first().waitFor();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    await page.getByRole("button", { name: "Copy commands" }).first().click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    assert.match(
      String(await page.evaluate("navigator.clipboard.readText()")),
      /^platform login .*\nplatform use cluster prod\n/,
    );
    assert.equal(await page.getByText("platform use cluster prod --direct").count(), 0);
    assert.ok(await page.getByText(`${server.url}/kubernetes/cluster/prod`).isVisible());
    // The form sets the ingress suffix that kube configs of its virtual clusters need; YAML the agent URL.
    await page.getByRole("link", { name: "Edit" }).click();
    await page.getByLabel("Ingress suffix for virtual clusters").fill("vc.example.com");
    await page.getByRole("button", { name: "YAML" }).click();
    const yaml = page.getByLabel("The whole object (YAML)");
    const text = await yaml.inputValue();
    assert.match(text, /management.platform\/ingress-suffix: vc.example.com/, "the form's change is in the YAML");
    await yaml.fill(
      text.replace(
        /^ {2}annotations:\n/m,
        "  annotations:\n    management.platform/direct-cluster-endpoint: https://agent.prod.example.com:6443\n",
      ),
    );
    await audit("cluster-yaml");
    await submitForm("Save");
    await page.getByRole("heading", { name: /Production/ }).waitFor();
    const prod = await server.request("GET", `${GROUP_PATH}/clusters/prod`);
    assert.equal(prod.json.metadata.annotations["management.platform/ingress-suffix"], "vc.example.com");
    // With an agent recorded, the page offers the direct connection too.
    await page.getByText("platform use cluster prod --direct").waitFor();
    assert.ok(await page.locator("code", { hasText: "https://agent.prod.example.com:6443" }).isVisible());
  });

  it("shows shared secret values only after reveal", async () => {
    await go("/k/sharedsecrets/new");
    await page.getByLabel("Name", { exact: true }).fill("db");
    await page.getByLabel("Values (one key=value a line)").fill("password=hunter2");
    await submitForm();
    await page.getByRole("heading", { name: "Values" }).waitFor();
    assert.equal(await page.getByText("hunter2").count(), 0, "hidden before reveal");
    await audit("secret-detail", true);
    await page.getByRole("button", { name: "Reveal values" }).click();
    await page.getByText("hunter2", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Hide values" }).click();
    await deleteThroughUi("/k/sharedsecrets/platform/db", `${GROUP_PATH}/namespaces/platform/sharedsecrets/db`);
  });

  it("creates an access key that is shown once", async () => {
    await go("/new-access-key");
    await page.getByLabel("Display name").fill("laptop");
    await page.getByLabel("Expires after (hours; empty: never)").fill("1d");
    await page.getByRole("button", { name: "Create key" }).click();
    const explained = page.locator(".field-error", { hasText: "Write a number of hours" });
    await explained.waitFor();
    assert.match(await explained.innerText(), /"1d" looks like 24 hours/);
    await page.getByLabel("Expires after (hours; empty: never)").fill("2");
    await audit("access-key-create");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByTestId("new-key");
    await shown.waitFor();
    const key = (await shown.innerText()).trim();
    assert.ok(key.length >= 32, key);
    assert.ok(await page.getByRole("button", { name: "Copy key" }).isVisible());
    assert.match(await page.getByRole("status").innerText(), /shown only this once/);
    await audit("access-key-created", true);
    const heading = await page.getByRole("heading", { level: 1 }).innerText();
    const name = heading.replace(/^Access key (\S+) created$/, "$1");
    await go(`/k/ownedaccesskeys/${name}`);
    await page.getByRole("heading", { name: /laptop/ }).waitFor();
    assert.ok(!(await page.content()).includes(key), "never shown again");
    const fact = (label: string) =>
      page.locator(".facts div", { has: page.getByText(label, { exact: true }) }).locator("dd");
    assert.equal(await fact("Type").innerText(), "User");
    assert.equal(await fact("Last used").innerText(), "never");
    assert.match(await fact("Expires").innerText(), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    assert.equal(await fact("Reaches").innerText(), "everything its owner may do");
    await audit("access-key-detail", true);
    await page.getByRole("button", { name: "Disable key" }).click();
    await page.getByRole("status").filter({ hasText: "Key disabled" }).waitFor();
    assert.equal((await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${name}`)).json.spec.disabled, true);
    await page.getByRole("button", { name: "Enable key" }).click();
    await page.getByRole("status").filter({ hasText: "Key enabled" }).waitFor();
    assert.equal((await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${name}`)).json.spec.disabled, undefined);
    const made = await server.request("GET", `${GROUP_PATH}/ownedaccesskeys/${name}`);
    assert.equal(made.json.spec.ttl, 7200);
    await deleteThroughUi(`/k/ownedaccesskeys/${name}`, `${GROUP_PATH}/ownedaccesskeys/${name}`);
  });

  it("creates a project, imports an instance, downloads its kube config, moves it", async () => {
    for (const name of ["web", "shop"]) {
      await go("/k/projects/new");
      await page.getByLabel("Name", { exact: true }).fill(name);
      await submitForm();
      await page.getByRole("heading", { name: "Import a virtual cluster" }).waitFor();
    }
    await go("/k/projects/web");
    // The page has a form to create one from a template too: these are the import form's fields.
    const importForm = page.locator("form", { has: page.getByRole("heading", { name: "Import a virtual cluster" }) });
    await importForm.getByLabel("Connected cluster").fill("prod");
    await importForm.getByLabel("Its namespace there").fill("team-a");
    await importForm.getByLabel("Virtual cluster name").fill("dev");
    await importForm.getByRole("button", { name: "Import" }).click();
    await page.getByRole("link", { name: "dev" }).waitFor();
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "dev" }) });
    assert.deepEqual(
      (await row.getByRole("cell").allInnerTexts()).slice(1, 3),
      ["prod", "team-a"],
      "the instance's cluster and namespace there",
    );
    await audit("project-detail", true);
    await page.getByRole("link", { name: "dev" }).click();
    await page.getByText("platform use vcluster dev --project web", { exact: false }).waitFor();
    assert.ok(await page.getByText(`${server.url}/kubernetes/project/web/virtualcluster/dev`).isVisible());
    const fact = (label: string) =>
      page.locator(".facts div", { has: page.getByText(label, { exact: true }) }).locator("dd");
    assert.equal(await fact("Cluster").innerText(), "prod");
    assert.equal(await fact("Namespace on the cluster").innerText(), "team-a");
    await page.getByLabel("Certificate valid for (hours)").fill("1d");
    await page.getByRole("button", { name: "Download kube config" }).click();
    await page.getByText('("1d" looks like 24 hours)', { exact: false }).waitFor();
    await page.getByLabel("Certificate valid for (hours)").fill("3");
    await audit("instance-detail", true);
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download kube config" }).click();
    const file = await (await download).path();
    const kubeconfig = readFileSync(file, "utf8");
    assert.match(kubeconfig, /https:\/\/dev-web\.vc\.example\.com/);
    assert.match(kubeconfig, /client-certificate-data/);
    await page.getByLabel("Target project").fill("shop");
    await page.getByRole("button", { name: "Move" }).click();
    await page.waitForURL(/virtualclusterinstances\/p-shop\/dev$/);
    await page.getByRole("status").filter({ hasText: "Moved dev to project shop." }).waitFor();
    const moved = await server.request("GET", `${GROUP_PATH}/namespaces/p-shop/virtualclusterinstances/dev`);
    assert.equal(moved.status, 200);
    await deleteThroughUi("/k/projects/web", `${GROUP_PATH}/projects/web`);
  });

  it("edits project members with a role each, and keeps the fields the form does not show", async () => {
    const made = await server.request("POST", `${GROUP_PATH}/projects`, {
      body: {
        metadata: { name: "roles" },
        spec: {
          members: [{ kind: "User", name: "alice", clusterRole: "platform-management-admin" }],
          allowedClusters: [{ name: "*" }],
        },
      },
    });
    assert.equal(made.status, 201, made.text);
    await go("/k/projects/roles/edit");
    assert.equal(await page.getByLabel("Member 1 role").inputValue(), "platform-management-admin");
    await page.getByRole("button", { name: "Add member" }).click();
    await page.getByLabel("Member 2 is a").selectOption("Team");
    await page.getByLabel("Member 2 name").fill("devs");
    await page.getByLabel("Member 2 role").selectOption("platform-management-view");
    await audit("project-members-edit", true);
    await submitForm("Save");
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    // The project page says who belongs with which role, and what to do while it has no virtual cluster.
    const members = page.getByRole("table", { name: "The members of this project" });
    const member = (name: string) => members.locator("tr", { has: page.getByRole("link", { name, exact: true }) });
    assert.match(await member("devs").innerText(), /^devs\s+Team\s+viewer: reads only$/);
    assert.match(await member("alice").innerText(), /^alice\s+User\s+admin: also manages the project$/);
    await page
      .getByText(
        "No virtual clusters in this project yet. Create one from a template or import one from a connected cluster below.",
      )
      .waitFor();
    const stored = await server.request("GET", `${GROUP_PATH}/projects/roles`);
    assert.deepEqual(stored.json.spec.members, [
      { kind: "User", name: "alice", clusterRole: "platform-management-admin" },
      { kind: "Team", name: "devs", clusterRole: "platform-management-view" },
    ]);
    assert.deepEqual(stored.json.spec.allowedClusters, [{ name: "*" }]);
    assert.equal((await server.request("DELETE", `${GROUP_PATH}/projects/roles`)).status, 200);
  });

  it("an editor who may not read a secret's values saves it without losing them; the YAML hides them", async () => {
    await server.request("POST", `${GROUP_PATH}/users`, {
      body: { metadata: { name: "editor" }, spec: { clusterRoles: [{ name: "platform-management-view" }] } },
    });
    const editorKey = (
      await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
        body: { metadata: { name: "editor-key" }, spec: { user: "editor" } },
      })
    ).json.spec.key;
    const secret = await server.request("POST", `${GROUP_PATH}/namespaces/platform/sharedsecrets`, {
      body: {
        metadata: { name: "api-token" },
        spec: { data: { token: b64("s3cret") }, access: [{ verbs: ["patch"], users: ["editor"] }] },
      },
    });
    assert.equal(secret.status, 201, secret.text);
    const other = await newConsoleContext(browser);
    try {
      const p = await other.newPage();
      await p.goto(`${server.url}/console/`);
      await p.getByLabel("Access key").fill(editorKey);
      await p.getByRole("button", { name: "Sign in" }).click();
      await p.getByText("Signed in as").waitFor();
      await p.goto(`${server.url}/console/k/sharedsecrets/platform/api-token/edit`);
      await p.getByLabel("Display name").fill("API token");
      await p.getByRole("button", { name: "Save", exact: true }).click();
      await p.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    } finally {
      await other.close();
    }
    const stored = await server.request("GET", `${GROUP_PATH}/namespaces/platform/sharedsecrets/api-token`);
    assert.equal(stored.json.spec.displayName, "API token");
    assert.deepEqual(stored.json.spec.data, { token: b64("s3cret") }, "the values the editor could not see are kept");
    const managers = stored.json.metadata.managedFields.map((m: { manager: string }) => m.manager);
    assert.ok(managers.includes("platform-console"), `the console names itself: ${managers}`);
    assert.ok(!managers.includes("Mozilla"), `not the browser: ${managers}`);
    // The admin reads the values, but not in the YAML panel, and managedFields only when asked for.
    await go("/k/sharedsecrets/platform/api-token");
    await page.getByText("YAML", { exact: true }).click();
    const yaml = page.locator("pre.yaml");
    await yaml.waitFor();
    assert.ok(!(await yaml.innerText()).includes(b64("s3cret")), "values hidden in the YAML");
    assert.match(await yaml.innerText(), /token: \(hidden\)/);
    assert.ok(!(await yaml.innerText()).includes("managedFields"), "managedFields left out by default");
    await page.getByLabel("Show managed fields (who wrote which field)").check();
    assert.match(await yaml.innerText(), /manager: platform-console/);
  });

  it("sorts namespaced lists by name, by any column header, with search and sort in the address", async () => {
    for (const [ns, name] of [
      ["zzz", "a-first"],
      ["aaa", "b-second"],
    ]) {
      const r = await server.request("POST", `${GROUP_PATH}/namespaces/${ns}/sharedsecrets`, {
        body: { metadata: { name }, spec: { displayName: `${name} shown` } },
      });
      assert.equal(r.status, 201, r.text);
    }
    const names = async () =>
      (await page.locator("tbody tr td:first-child a").allInnerTexts()).filter((n) => /first|second/.test(n));
    await go("/k/sharedsecrets");
    await page.getByRole("link", { name: "a-first" }).waitFor();
    assert.deepEqual(await names(), ["a-first", "b-second"], "by name, whatever the namespace");
    const nameHeader = page.getByRole("columnheader", { name: "Name", exact: true });
    assert.equal(await nameHeader.getAttribute("aria-sort"), "ascending");
    await nameHeader.getByRole("button").click();
    await page.waitForURL(/order=desc/);
    assert.deepEqual(await names(), ["b-second", "a-first"]);
    await page
      .getByRole("columnheader", { name: /^Namespace/ })
      .getByRole("button")
      .click();
    await page.waitForURL(/sort=namespace/);
    assert.deepEqual(await names(), ["b-second", "a-first"], "aaa before zzz");
    await page.getByLabel("Name or display name").fill("shown");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/q=shown/);
    await audit("secrets-list-sorted", true);
    // The address is the list: a reload (or a shared link) shows the same search and order.
    await page.reload();
    await page.getByRole("link", { name: "a-first" }).waitFor();
    assert.equal(await page.getByLabel("Name or display name").inputValue(), "shown");
    assert.equal(
      await page.getByRole("columnheader", { name: "Namespace", exact: true }).getAttribute("aria-sort"),
      "ascending",
    );
    assert.deepEqual(await names(), ["b-second", "a-first"]);
    for (const [ns, name] of [
      ["zzz", "a-first"],
      ["aaa", "b-second"],
    ]) {
      await server.request("DELETE", `${GROUP_PATH}/namespaces/${ns}/sharedsecrets/${name}`);
    }
  });

  it("deleting a cluster says what depends on it and takes the credentials the connect flow stored", async () => {
    const secretPath = `${GROUP_PATH}/namespaces/platform/sharedsecrets/prod-kubeconfig`;
    const secret = await server.request("GET", secretPath);
    const prod = await server.request("GET", `${GROUP_PATH}/clusters/prod`);
    assert.deepEqual(
      secret.json.metadata.ownerReferences?.map((r: { uid: string }) => r.uid),
      [prod.json.metadata.uid],
      "the connect flow made the cluster own its kube config secret",
    );
    await go("/k/clusters/prod");
    await page.getByRole("button", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("p-shop/dev").waitFor();
    assert.match(await dialog.innerText(), /1 virtual cluster runs on it/);
    assert.match(await dialog.innerText(), /platform\/prod-kubeconfig .*deleted with it/s);
    await audit("cluster-delete", true);
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("status").filter({ hasText: "Cluster prod deleted." }).waitFor();
    for (let i = 0; i < 100 && (await server.request("GET", secretPath)).status !== 404; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await server.request("GET", secretPath)).status, 404, "its credentials are gone with it");
    // The page says the cluster is gone at once (the instance's status says ClusterNotFound once the status controller has looked).
    await go("/k/virtualclusterinstances/p-shop/dev");
    await page.getByText("deleted: this virtual cluster cannot be reached", { exact: false }).waitFor();
  });

  /** Cluster `name` reading shared secret platform/`name`-kubeconfig, which it does not own (made by hand, not by the connect flow). */
  async function clusterWithSecretMadeByHand(name: string): Promise<void> {
    const secret = await server.request("POST", `${GROUP_PATH}/namespaces/platform/sharedsecrets`, {
      body: { metadata: { name: `${name}-kubeconfig` }, spec: { data: { config: b64(kube.kubeconfig()) } } },
    });
    assert.equal(secret.status, 201, secret.text);
    const cluster = await server.request("POST", `${GROUP_PATH}/clusters`, {
      body: { metadata: { name }, spec: { config: { secretName: `${name}-kubeconfig` } } },
    });
    assert.equal(cluster.status, 201, cluster.text);
  }

  it("deleting a cluster offers to delete a kube config secret it does not own", async () => {
    await clusterWithSecretMadeByHand("old");
    await go("/k/clusters/old");
    await page.getByRole("button", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("No virtual cluster runs on it.").waitFor();
    await dialog
      .getByLabel("Also delete the shared secret platform/old-kubeconfig (its kube config and credentials)")
      .check();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("status").filter({ hasText: "Cluster old deleted." }).waitFor();
    const left = await server.request("GET", `${GROUP_PATH}/namespaces/platform/sharedsecrets/old-kubeconfig`);
    assert.equal(left.status, 404);
  });

  it("deleting a cluster says so when the user may not see what depends on it, never 'nothing'", async () => {
    await clusterWithSecretMadeByHand("kept");
    // An administrator's key narrowed to clusters: it may delete one, not read instances or secrets.
    const key = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: {
        metadata: { name: "clusters-only" },
        spec: {
          scope: {
            allowPlatformCli: true,
            rules: [
              {
                verbs: ["get", "list", "watch", "delete"],
                resources: [{ group: "management.platform", resources: ["clusters"] }],
              },
            ],
          },
        },
      },
    });
    assert.equal(key.status, 201, key.text);
    const token = key.json.spec.key as string;
    for (const path of ["virtualclusterinstances", "namespaces/platform/sharedsecrets/kept-kubeconfig"]) {
      const refused = await server.request("GET", `${GROUP_PATH}/${path}`, { token });
      assert.equal(refused.status, 403, refused.text);
    }
    const narrow = await signedInConsole(browser, server.url, token);
    await narrow.goto(`${server.url}/console/k/clusters/kept`);
    await narrow.getByRole("button", { name: "Delete" }).click();
    const dialog = narrow.getByRole("dialog");
    await dialog
      .getByText(/^You may not see the virtual clusters: .* Whether any runs on it is not known\.$/)
      .waitFor();
    await dialog
      .getByText(/^You may not see the shared secret platform\/kept-kubeconfig: .* Whether it goes with the cluster/)
      .waitFor();
    assert.equal(await dialog.getByText("No virtual cluster runs on it.").count(), 0);
    await narrow.context().close();
    assert.equal((await server.request("DELETE", `${GROUP_PATH}/clusters/kept`)).status, 200);
    assert.equal(
      (await server.request("DELETE", `${GROUP_PATH}/namespaces/platform/sharedsecrets/kept-kubeconfig`)).status,
      200,
    );
  });

  it("a failed connect leaves no kube config secret behind", async () => {
    const taken = await server.request("POST", `${GROUP_PATH}/clusters`, {
      body: { metadata: { name: "taken" }, spec: { local: true } },
    });
    assert.equal(taken.status, 201, taken.text);
    await go("/connect-cluster");
    await page.getByLabel("Name", { exact: true }).fill("taken");
    await page.getByLabel("Kube config").fill(kube.kubeconfig());
    await page.getByRole("button", { name: "Connect" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: /already exists/ })
      .waitFor();
    const left = await server.request("GET", `${GROUP_PATH}/namespaces/platform/sharedsecrets/taken-kubeconfig`);
    assert.equal(left.status, 404);
    assert.equal((await server.request("DELETE", `${GROUP_PATH}/clusters/taken`)).status, 200);
  });

  it("opens on an overview: counts, the clusters that fail, recent events", async () => {
    const broken = await server.request("POST", `${GROUP_PATH}/clusters`, {
      body: { metadata: { name: "broken" }, spec: { config: { secretName: "no-such-secret" } } },
    });
    assert.equal(broken.status, 201, broken.text);
    await go("/");
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    const failing = page.locator("section", { has: page.getByRole("heading", { name: "Clusters that fail" }) });
    await failing.getByRole("link", { name: "broken" }).waitFor({ timeout: 30_000 });
    await page
      .getByText(/Warning\s+NotReady\s+Cluster\s+broken/)
      .first()
      .waitFor({ timeout: 30_000 });
    const teams = (await server.request("GET", `${GROUP_PATH}/teams`)).json.items.length;
    assert.equal(await page.getByRole("link", { name: `${teams} Teams` }).count(), 1, "the count of teams");
    await audit("overview", true);
    assert.equal((await server.request("DELETE", `${GROUP_PATH}/clusters/broken`)).status, 200);
    // Someone who sees only some objects gets those counted (the server gives no remainingItemCount then).
    await server.request("POST", `${GROUP_PATH}/users`, { body: { metadata: { name: "reader" } } });
    const readerKey = (
      await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
        body: { metadata: { name: "reader-key" }, spec: { user: "reader" } },
      })
    ).json.spec.key;
    for (const name of ["shared-r1", "shared-r2"]) {
      const r = await server.request("POST", `${GROUP_PATH}/namespaces/platform/sharedsecrets`, {
        body: { metadata: { name }, spec: { access: [{ verbs: ["get"], users: ["reader"] }] } },
      });
      assert.equal(r.status, 201, r.text);
    }
    const other = await newConsoleContext(browser);
    try {
      const p = await other.newPage();
      await p.goto(`${server.url}/console/`);
      await p.getByLabel("Access key").fill(readerKey);
      await p.getByRole("button", { name: "Sign in" }).click();
      await p.getByRole("heading", { name: "Overview" }).waitFor();
      await p.getByRole("link", { name: "2 Shared secrets" }).waitFor();
    } finally {
      await other.close();
    }
    for (const name of ["shared-r1", "shared-r2"]) {
      await server.request("DELETE", `${GROUP_PATH}/namespaces/platform/sharedsecrets/${name}`);
    }
  });

  it("shows an object created elsewhere without a reload", async () => {
    await go("/k/teams");
    await page.locator(".empty").or(page.locator("table")).first().waitFor();
    await page.evaluate("window.__marker = true");
    const res = await server.request("POST", `${GROUP_PATH}/teams`, {
      body: { metadata: { name: "live-team" }, spec: { displayName: "Arrived live" } },
    });
    assert.equal(res.status, 201);
    await page.getByText("Arrived live").waitFor({ timeout: 10_000 });
    assert.equal(await page.evaluate("window.__marker"), true, "no reload");
  });

  it("says when the server cannot be reached, and recovers by itself when it answers again", async () => {
    await go("/k/teams/live-team");
    await page.getByRole("heading", { name: /Arrived live/ }).waitFor();
    // The browser stays online; every connection to the server fails, as when it is down.
    const down = (route: Route) => route.abort("connectionrefused");
    await page.route(`${server.url}/**`, down);
    const banner = page.getByRole("alert").filter({ hasText: "The server cannot be reached" });
    try {
      await banner.waitFor();
      await audit("server-unreachable", true);
      assert.equal(await banner.count(), 1, "said once, not again by each part of the page");
    } finally {
      await page.unroute(`${server.url}/**`, down);
    }
    await banner.waitFor({ state: "detached" });
    await page.getByRole("heading", { name: /Arrived live/ }).waitFor();
  });

  it("offers to reload after a 409 conflict", async () => {
    await go("/k/teams/live-team/edit");
    await page.getByLabel("Display name").fill("Mine");
    const current = await server.request("GET", `${GROUP_PATH}/teams/live-team`);
    current.json.spec.description = "changed elsewhere";
    assert.equal((await server.request("PUT", `${GROUP_PATH}/teams/live-team`, { body: current.json })).status, 200);
    await submitForm("Save");
    const reload = page.getByRole("button", { name: /Reload the current version/ });
    await reload.waitFor();
    await reload.click();
    await page
      .getByText(/changed elsewhere/)
      .first()
      .waitFor({ state: "attached" });
    await page.getByRole("button", { name: "YAML" }).click();
    assert.match(await page.getByLabel("The whole object (YAML)").inputValue(), /changed elsewhere/);
  });

  it("renders hostile names, labels and display names as text", async () => {
    const res = await server.request("POST", `${GROUP_PATH}/teams`, {
      body: {
        metadata: { name: "xss", annotations: { note: XSS_SCRIPT } },
        spec: { displayName: XSS_IMG, description: XSS_SCRIPT, users: [XSS_IMG], access: [] },
      },
    });
    assert.equal(res.status, 201, res.text);
    await go("/k/teams");
    await page.getByText(XSS_IMG).first().waitFor();
    await go("/k/teams/xss");
    await page.getByText(XSS_SCRIPT).first().waitFor();
    // Names and label values cannot hold markup: the server's refusal, which quotes the value, is text too.
    await go("/k/teams/new");
    await page.getByLabel("Name", { exact: true }).fill(`a${XSS_IMG}`);
    await page.getByLabel("Labels (key=value, comma separated)").fill(`x=${XSS_SCRIPT}`);
    await submitForm();
    await page.locator(".field-error").first().waitFor();
    assert.ok((await page.locator("main").innerText()).includes("<img"), "the refused name is shown as text");
    assert.equal(await page.locator("main img").count(), 0);
    assert.equal(await page.evaluate("window.__xss"), undefined);
  });

  it("refuses a write with the session cookie but without the CSRF token", async () => {
    const status = await page.evaluate(async (path) => {
      const res = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ metadata: { name: "csrf" } }),
      });
      return res.status;
    }, `${GROUP_PATH}/teams`);
    assert.equal(status, 403);
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams/csrf`)).status, 404);
  });

  it("works at phone width and in dark mode: nothing scrolls sideways, the navigation is a menu", async () => {
    const phone = await newConsoleContext(browser, { width: 390, height: 844, colorScheme: "dark" });
    try {
      await phone.addCookies(await context.cookies());
      const p = await phone.newPage();
      await p.goto(`${server.url}/console/k/teams`);
      await p.getByRole("link", { name: "live-team" }).waitFor();
      await settled(p);
      const bg = await p.evaluate("getComputedStyle(document.body).backgroundColor");
      assert.notEqual(bg, "rgb(255, 255, 255)", "dark background in dark mode");
      if (SHOTS) await p.screenshot({ path: join(SHOTS, "teams-phone-dark.png"), fullPage: true });
      // The navigation is folded away until the menu opens it; choosing a page closes it again.
      const nav = p.getByRole("navigation", { name: "Main" });
      assert.equal(await nav.getByRole("link", { name: "Clusters" }).isVisible(), false);
      await p.getByRole("button", { name: "Menu" }).click();
      await nav.getByRole("link", { name: "Shared secrets" }).click();
      await p.getByRole("heading", { name: "Shared secrets" }).waitFor();
      assert.equal(await nav.getByRole("link", { name: "Clusters" }).isVisible(), false);
      for (const path of [
        "/",
        "/k/sharedsecrets",
        "/k/projects/shop",
        "/k/teams/live-team",
        "/k/virtualclusterinstances/p-shop/dev",
        "/k/projects/shop/edit",
        "/new-access-key",
        "/self",
      ]) {
        await p.goto(`${server.url}/console${path}`);
        await settled(p);
        // The page itself, and every box in it, fits the screen: long URLs and tables wrap.
        const wide = await p.evaluate(`[document.documentElement, ...document.querySelectorAll("body *")]
          .filter((e) => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0 &&
            (e === document.documentElement || ["auto", "scroll"].includes(getComputedStyle(e).overflowX)))
          .map((e) => e.tagName + "." + e.className + " " + e.scrollWidth + ">" + e.clientWidth)`);
        assert.deepEqual(wide, [], `${path} scrolls sideways at 390 px`);
        for (const v of await seriousAxeViolations(p)) axeFindings.push(`phone-dark ${path}: ${v.id} ${v.help}`);
        if (SHOTS) {
          const name = path === "/" ? "phone-overview" : `phone${path.replaceAll("/", "-")}`;
          await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
        }
      }
    } finally {
      await phone.close();
    }
  });

  it("can be used with the keyboard alone", async () => {
    await go("/self");
    await page.getByRole("heading", { name: "Who am I" }).waitFor();
    await page.keyboard.press("Tab");
    const focused = () => page.evaluate("document.activeElement?.textContent");
    assert.equal(await focused(), "Skip to content");
    let reached = false;
    for (let i = 0; i < 12 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = (await focused()) === "Teams";
    }
    assert.ok(reached, "the menu is reachable by Tab");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Teams" }).waitFor();
  });

  it("a view-only user sees no edit buttons and cannot write", async () => {
    await server.request("POST", `${GROUP_PATH}/users`, {
      body: { metadata: { name: "viewer" }, spec: { clusterRoles: [{ name: "platform-management-view" }] } },
    });
    const key = await server.request("POST", `${GROUP_PATH}/ownedaccesskeys`, {
      body: { metadata: { name: "viewer-key" }, spec: { user: "viewer" } },
    });
    viewerKey = key.json.spec.key;
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Access key").waitFor();
    await signInAs(viewerKey);
    await go("/k/teams");
    await page.getByRole("link", { name: "live-team" }).waitFor();
    await settled(page);
    assert.equal(await page.getByRole("link", { name: "Create", exact: true }).count(), 0);
    await go("/k/teams/live-team");
    await page.getByRole("heading", { name: "Access", exact: true }).waitFor();
    await settled(page);
    assert.equal(await page.getByRole("link", { name: "Edit" }).count(), 0);
    assert.equal(await page.getByRole("button", { name: "Delete" }).count(), 0);
    await audit("viewer-team-detail");
    // Even with the session's own CSRF token the server refuses the write: a clear message.
    await go("/k/teams/new");
    await page.getByLabel("Name", { exact: true }).fill("nope");
    await submitForm();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    assert.match(await alert.innerText(), /not allowed/);
    assert.equal((await server.request("GET", `${GROUP_PATH}/teams/nope`)).status, 404);
  });

  it("sign out ends the session on the server: the old cookie is refused", async () => {
    const cookie = (await context.cookies()).find((c) => c.name === SESSION_COOKIE)!;
    const before = await server.request("GET", `${GROUP_PATH}/teams`, {
      token: null,
      headers: { cookie: `${cookie.name}=${cookie.value}` },
    });
    assert.equal(before.status, 200);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Access key").waitFor();
    const afterOut = await server.request("GET", `${GROUP_PATH}/teams`, {
      token: null,
      headers: { cookie: `${cookie.name}=${cookie.value}` },
    });
    assert.equal(afterOut.status, 401);
  });

  it("axe-core finds nothing serious or critical on any page", () => {
    assert.deepEqual(axeFindings, []);
  });
});
