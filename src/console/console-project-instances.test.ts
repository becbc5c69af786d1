// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the templates it creates reference their values as ${...}
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Locator, Page, Route } from "playwright-core";
import { launchChromium, newConsoleContext, seriousAxeViolations, signedInConsole } from "../testing/browser.js";
import type { KubeControlPlane, KubeUser } from "../testing/kube-control-plane.js";
import { documentedPlatformRole, startPlatformOnControlPlane } from "../testing/platform-on-control-plane.js";
import { GROUP_PATH, scopedKey, type TestServer, userWithKey } from "../testing/test-server.js";
import { STAND_IN_WORKLOAD } from "../testing/virtual-cluster-workload.js";

/** Set CONSOLE_SCREENSHOTS=docs/console to refresh the screenshots of docs/console.md. */
const SHOTS = process.env.CONSOLE_SCREENSHOTS;

/**
 * A project's virtual clusters and spaces in Chromium: "Create virtual cluster" from a template
 * (its parameters checked before sending, the server's refusals beside the fields), the
 * instance's page until Ready, and the project's spaces (create from a SpaceTemplate, delete).
 * The cluster is the real test control plane: the platform deploys the instance from its
 * template, and its Deployment becomes ready through kube-controller-manager and pods the
 * kubelet stand-in reports ready (no container runs here).
 */
describe("console: a project's virtual clusters and spaces in Chromium", { timeout: 300_000 }, () => {
  let server: TestServer;
  let kube: KubeControlPlane;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const findings: string[] = [];

  const post = async (path: string, body: unknown) => {
    const res = await server.request("POST", `${GROUP_PATH}/${path}`, { body });
    assert.equal(res.status, 201, res.text);
  };

  before(async () => {
    let platform: KubeUser;
    ({ kube, server, platform } = await startPlatformOnControlPlane({
      cluster: "c1",
      kubelet: true,
    }));
    // What docs/spaces.md tells a cluster admin to grant, so a space becomes Ready.
    await kube.grant(platform, { rules: documentedPlatformRole("docs/spaces.md") });
    await post("projects", { metadata: { name: "web" }, spec: {} });
    await post("virtualclustertemplates", {
      metadata: { name: "tiny" },
      spec: {
        displayName: "Tiny",
        versions: [
          {
            version: "1.0.0",
            parameters: [{ name: "replicas", type: "number", required: true }],
            objects: [
              { apiVersion: "v1", kind: "Secret", metadata: { name: "${instance.name}-hello" } },
              ...STAND_IN_WORKLOAD,
            ],
          },
        ],
      },
    });
    await post("spacetemplates", {
      metadata: { name: "small" },
      spec: {
        displayName: "Small team space",
        parameters: [{ name: "pods", type: "number", default: "10" }],
        template: {
          objects: [
            {
              apiVersion: "v1",
              kind: "ResourceQuota",
              metadata: { name: "quota" },
              spec: { hard: { pods: "${params.pods}" } },
            },
          ],
        },
      },
    });
    browser = await launchChromium();
    context = await newConsoleContext(browser);
    page = await context.newPage();
    page.on("dialog", (d) => {
      findings.push(`unexpected dialog: ${d.message()}`);
      void d.dismiss();
    });
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
    await page.goto(`${server.url}/console/`);
    await page.getByLabel("Access key").fill(server.adminKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Signed in as").waitFor();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await kube?.stop();
  });

  async function audit(name: string): Promise<void> {
    for (let i = 0; i < 200 && !(await page.evaluate("!document.querySelector('[aria-busy=true]')")); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const v of await seriousAxeViolations(page)) findings.push(`${name}: ${v.id} (${v.impact}) ${v.help}`);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  /** The phase on an instance's page, in its Status facts. */
  const phaseBadge = (phase: string) =>
    page.locator("dl.facts div", { has: page.locator("dt", { hasText: /^Phase$/ }) }).locator(".badge", {
      hasText: new RegExp(`^${phase}$`),
    });
  const createForm = () => page.locator("form", { has: page.getByRole("heading", { name: "Create virtual cluster" }) });
  const spaceForm = () => page.locator("form", { has: page.getByRole("heading", { name: "Create a space" }) });

  /** The message beside the field labelled `label` in `form`, and the field itself. */
  const fieldOf = (form: Locator, label: string) => ({
    input: form.getByLabel(label, { exact: true }),
    error: form.locator(".field", { has: page.getByLabel(label, { exact: true }) }).locator(".field-error"),
  });

  it("create virtual cluster says what is wrong with a parameter beside it once the field is left, before anything is sent", async () => {
    await page.goto(`${server.url}/console/k/projects/web`);
    const form = createForm();
    await form.getByLabel("Template", { exact: true }).selectOption("tiny");
    const replicas = fieldOf(form, "replicas (required)");
    await replicas.input.fill("many");
    await replicas.input.press("Tab");
    await replicas.error.waitFor();
    assert.equal(await replicas.error.innerText(), 'Write a number, such as 3 ("many" is not one).');
    assert.equal(await replicas.input.getAttribute("aria-invalid"), "true");
    // Said as typed from then on.
    await replicas.input.fill("");
    await form.getByText("Required: this template needs a value.").waitFor();
    await replicas.input.fill("2");
    await replicas.error.waitFor({ state: "detached" });
    // Nothing was submitted: no summary above the form, nothing stored.
    assert.equal(await form.getByRole("alert").count(), 0);
    const none = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`);
    assert.equal(none.json.items.length, 0);
  });

  it("create a space says what is wrong with a parameter beside it once the field is left, before anything is sent", async () => {
    await page.goto(`${server.url}/console/k/projects/web`);
    const form = spaceForm();
    const template = form.getByLabel("Space template");
    // Templates are offered by their display name, as on the virtual cluster form.
    await template.locator("option", { hasText: "Small team space (small)" }).waitFor({ state: "attached" });
    await template.selectOption("small");
    const pods = fieldOf(form, "pods");
    assert.match(await form.innerText(), /template default: 10/);
    await pods.input.fill("lots");
    await pods.input.press("Tab");
    await pods.error.waitFor();
    assert.equal(await pods.error.innerText(), 'Write a number, such as 3 ("lots" is not one).');
    await pods.input.fill("20");
    await pods.error.waitFor({ state: "detached" });
    assert.equal(await form.getByRole("alert").count(), 0);
    const none = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances`);
    assert.equal(none.json.items.length, 0);
  });

  it("creates a virtual cluster from a template: parameters checked before sending, server errors beside fields, then Ready", async () => {
    await page.goto(`${server.url}/console/k/projects/web`);
    const form = createForm();
    await form.getByLabel("Template", { exact: true }).selectOption("tiny");
    await form.getByLabel("Template version").selectOption("1.0.0");
    await form.getByLabel("Virtual cluster name").fill("Bad_Name");
    await form.getByLabel("Connected cluster").fill("c1");
    await form.getByLabel("Namespace there").fill("web-dev-vc");
    await form.getByLabel("replicas (required)").fill("many");
    await form.getByRole("button", { name: "Create virtual cluster" }).click();
    await form.locator(".field-error").first().waitFor();
    assert.match(await form.locator(".field-error").innerText(), /Write a number, such as 3 \("many" is not one\)/);
    // Checked in the page: nothing was sent.
    const none = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances`);
    assert.equal(none.json.items.length, 0);

    await form.getByLabel("replicas (required)").fill("2");
    await form.getByRole("button", { name: "Create virtual cluster" }).click();
    await form.getByText(/"Bad_Name" is not valid/).waitFor();
    assert.equal(await form.getByLabel("Virtual cluster name").getAttribute("aria-invalid"), "true");
    await audit("vcluster-create-error");

    await form.getByLabel("Virtual cluster name").fill("dev");
    await form.getByRole("button", { name: "Create virtual cluster" }).click();
    await page.getByText("Created virtual cluster dev.").waitFor();
    const stored = (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/dev`)).json;
    assert.deepEqual(stored.spec.templateRef, { name: "tiny", version: "1.0.0" });
    assert.deepEqual(stored.spec.parameters, { replicas: "2" });
    assert.ok(stored.metadata.managedFields.some((f: { manager: string }) => f.manager === "platform-console"));
    await page.getByText("tiny, version 1.0.0 (pinned)").waitFor();
    await page.locator(".badge", { hasText: "Ready" }).first().waitFor({ timeout: 60_000 });
    // The status controller reports the change of phase as an Event about the instance.
    await server.events.recorder.flush();
    await page.reload();
    await page.locator("ul.events li", { hasText: "WorkloadReady" }).waitFor();
    // Where it runs, and its conditions with the reason the platform read from the cluster.
    const fact = (label: string) =>
      page.locator(".facts div", { has: page.getByText(label, { exact: true }) }).locator("dd");
    assert.equal(await fact("Cluster").innerText(), "c1");
    assert.equal(await fact("Namespace on the cluster").innerText(), "web-dev-vc");
    const readyCondition = page.locator("tr", { has: page.locator("td[data-label=Type]", { hasText: /^Ready$/ }) });
    assert.equal(await readyCondition.locator("td[data-label=Status]").innerText(), "True");
    assert.equal(await readyCondition.locator("td[data-label=Reason]").innerText(), "WorkloadReady");
    await audit("instance-detail-template");
  });

  it("the project page lists its instances with their phase", async () => {
    await page.goto(`${server.url}/console/k/projects/web`);
    const row = page.locator("tr", { has: page.getByRole("link", { name: "dev", exact: true }) });
    await row.locator(".badge", { hasText: "Ready" }).waitFor();
  });

  it("puts the instance to sleep and wakes it up from its page, with its last activity", async () => {
    await page.goto(`${server.url}/console/k/virtualclusterinstances/p-web/dev`);
    const facts = page.locator("dl", { has: page.getByText("Sleep state") });
    await facts.locator(".badge", { hasText: "awake" }).waitFor();
    await facts.getByText("none recorded yet").waitFor();
    await page.getByRole("button", { name: "Sleep", exact: true }).click();
    await page
      .getByRole("status")
      .getByText(/put to sleep|going to sleep/)
      .waitFor();
    const asleep = (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/dev`)).json;
    assert.equal(asleep.status.sleep.reason, "Requested", JSON.stringify(asleep.status));
    await facts.locator(".badge", { hasText: "asleep" }).waitFor();
    await facts.getByText("put to sleep by hand").waitFor();
    // The platform scales the workload on the cluster to zero, and the phase follows.
    await phaseBadge("Sleeping").waitFor({ timeout: 60_000 });
    assert.equal(
      await kube.kubectl("get", "deployment", "dev", "-n", "web-dev-vc", "-o", "jsonpath={.spec.replicas}"),
      "0",
    );
    await audit("instance-asleep");

    await page.getByRole("button", { name: "Wake up" }).click();
    await page.getByRole("status").getByText(/wak/).waitFor();
    const awake = (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/dev`)).json;
    assert.equal(awake.status.sleep, undefined, JSON.stringify(awake.status));
    // Waking counts as activity: the page shows it relative to now, the exact time on hover.
    assert.ok(awake.status.lastActivity, JSON.stringify(awake.status));
    const time = facts.locator(`time[datetime="${awake.status.lastActivity}"]`);
    await time.waitFor();
    assert.match(await time.innerText(), /now|second|minute/);
    assert.equal(
      await time.getAttribute("title"),
      await page.evaluate(`new Date(${JSON.stringify(awake.status.lastActivity)}).toString()`),
    );
    await facts.locator(".badge", { hasText: "awake" }).waitFor();
    await page.getByRole("button", { name: "Sleep", exact: true }).waitFor();
    // Scaled back up, and Ready once its replicas are.
    await phaseBadge("Ready").waitFor({ timeout: 60_000 });
    assert.equal(
      await kube.kubectl("get", "deployment", "dev", "-n", "web-dev-vc", "-o", "jsonpath={.spec.replicas}"),
      "1",
    );
  });

  it("a project viewer, without use on the instance, is not offered Sleep (the server refuses it too)", async () => {
    const key = await userWithKey(server, "vera");
    const project = (await server.request("GET", `${GROUP_PATH}/projects/web`)).json;
    project.spec.members = [{ kind: "User", name: "vera", clusterRole: "platform-management-view" }];
    const put = await server.request("PUT", `${GROUP_PATH}/projects/web`, { body: project });
    assert.equal(put.status, 200, put.text);
    const refused = await server.request("POST", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/dev/sleep`, {
      body: {},
      token: key,
    });
    assert.equal(refused.status, 403, refused.text);
    const viewer = await signedInConsole(browser, server.url, key);
    await viewer.goto(`${server.url}/console/k/virtualclusterinstances/p-web/dev`);
    await viewer.getByText("needs the right use on this virtual cluster").waitFor();
    assert.equal(await viewer.getByRole("button", { name: "Sleep", exact: true }).count(), 0);
    assert.equal(await viewer.getByRole("button", { name: "Wake up" }).count(), 0);
    await viewer.context().close();
  });

  it("creates a space from a template (its parameters checked first) and deletes it", async () => {
    await page.goto(`${server.url}/console/k/projects/web`);
    const form = spaceForm();
    await form.getByLabel("Space name").fill("web-dev");
    await form.getByLabel("Cluster of the space").fill("c1");
    await form.getByLabel("Space template").selectOption("small");
    await form.getByLabel("pods").fill("lots");
    await form.getByRole("button", { name: "Create space" }).click();
    assert.match(await form.locator(".field-error").innerText(), /Write a number/);
    await form.getByLabel("pods").fill("20");
    await form.getByRole("button", { name: "Create space" }).click();
    // Followed live under the form until it settles, as `platform create space --wait` does.
    const progress = form.getByRole("status");
    await progress
      .getByText(/^Created space web-dev; waiting until it is ready, now|^Space web-dev is ready\.$/)
      .waitFor();
    await progress.getByText("Space web-dev is ready.", { exact: true }).waitFor({ timeout: 60_000 });
    const stored = (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/web-dev`)).json;
    assert.deepEqual(stored.spec.templateRef, { name: "small" });
    assert.deepEqual(stored.spec.parameters, { pods: "20" });
    const row = page.locator("tr", { has: page.getByRole("link", { name: "web-dev", exact: true }) });
    await row.waitFor();
    await audit("project-spaces");
    await row.getByRole("button", { name: "Delete" }).click();
    await row.getByRole("button", { name: "Yes, delete web-dev" }).click();
    // Its finalizer holds it until the space controller has removed the namespace from the cluster.
    await row.getByRole("button", { name: "Yes, delete web-dev" }).waitFor({ state: "detached" });
    const after = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/web-dev`);
    assert.ok(after.status === 404 || after.json.metadata.deletionTimestamp, after.text);
  });

  it("a space that cannot be made says why in words under the form, once it has failed", async () => {
    // A namespace of that name is already on the cluster, made by someone else: the space fails.
    await kube.kubectl("create", "namespace", "taken-elsewhere");
    await page.goto(`${server.url}/console/k/projects/web`);
    const form = spaceForm();
    await form.getByLabel("Space name").fill("grab");
    await form.getByLabel("Cluster of the space").fill("c1");
    await form.getByLabel("Namespace on the cluster").fill("taken-elsewhere");
    await form.getByRole("button", { name: "Create space" }).click();
    const failed = form.getByRole("status").getByText(/^Space grab failed: /);
    await failed.waitFor({ timeout: 60_000 });
    const stored = (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/grab`)).json;
    assert.equal(stored.status.phase, "Failed", JSON.stringify(stored.status));
    assert.equal(stored.status.reason, "NamespaceNotOwned");
    assert.equal(
      await failed.innerText(),
      `Space grab failed: a namespace of that name already exists on the cluster and belongs to something else (NamespaceNotOwned): ${stored.status.message}. It was created and stays: fix the cause, or delete it.`,
    );
    // The project's list says the same in its Phase column.
    const row = page.locator("tr", { has: page.getByRole("link", { name: "grab", exact: true }) });
    await row.getByText("belongs to something else").waitFor();
    await audit("space-failed");
    await page.setViewportSize({ width: 390, height: 844 });
    await failed.waitFor();
    const overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
    assert.ok(Number(overflow) <= 0, `scrolls sideways by ${overflow}px`);
    await page.setViewportSize({ width: 1280, height: 860 });
    await row.getByRole("button", { name: "Delete" }).click();
    await row.getByRole("button", { name: "Yes, delete grab" }).click();
    await row.waitFor({ state: "detached", timeout: 60_000 });
  });

  it("the user may leave the page while a new space is made: its own page follows it to Ready", async () => {
    await page.goto(`${server.url}/console/k/projects/web`);
    const form = spaceForm();
    await form.getByLabel("Space name").fill("later");
    await form.getByLabel("Cluster of the space").fill("c1");
    await form.getByRole("button", { name: "Create space" }).click();
    // Left at once, by the link the progress line gives: nothing holds the user on the form.
    await form.getByRole("status").getByRole("link", { name: "later" }).click();
    await page.waitForURL(/\/console\/k\/spaceinstances\/p-web\/later$/);
    const phase = page.locator("dl.facts div", { has: page.locator("dt", { hasText: /^Phase$/ }) }).locator("dd");
    await phase.getByText("Ready", { exact: true }).waitFor({ timeout: 60_000 });
    const stored = (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/later`)).json;
    assert.equal(stored.status.phase, "Ready", JSON.stringify(stored.status));
  });

  it("every list on the project page is one table: sorted by a pressed header, each row linked, the empty one saying what to do", async () => {
    const project = (await server.request("GET", `${GROUP_PATH}/projects/web`)).json;
    project.spec.members = [
      { kind: "User", name: "zed" },
      { kind: "User", name: "amy", clusterRole: "platform-management-view" },
      { kind: "Team", name: "crew" },
    ];
    const put = await server.request("PUT", `${GROUP_PATH}/projects/web`, { body: project });
    assert.equal(put.status, 200, put.text);
    await page.goto(`${server.url}/console/k/projects/web`);
    const members = page.getByRole("table", { name: "The members of this project" });
    const names = () => members.locator("tbody td[data-label=Name]").allInnerTexts();
    await members.waitFor();
    assert.deepEqual(await names(), ["amy", "crew", "zed"]);
    const nameHeader = members.getByRole("columnheader", { name: "Name", exact: true });
    assert.equal(await nameHeader.getAttribute("aria-sort"), "ascending");
    await nameHeader.getByRole("button").click();
    assert.deepEqual(await names(), ["zed", "crew", "amy"]);
    assert.equal(await nameHeader.getAttribute("aria-sort"), "descending");
    // By role, twice pressed: descending, the viewer first; the members keep the project's order.
    const roleHeader = members.getByRole("columnheader", { name: "Role", exact: true });
    await roleHeader.getByRole("button").click();
    await roleHeader.getByRole("button").click();
    assert.equal(await roleHeader.getAttribute("aria-sort"), "descending");
    assert.equal(await nameHeader.getAttribute("aria-sort"), null);
    assert.deepEqual(await names(), ["amy", "zed", "crew"]);
    // The other lists are the same table: a sorting header each, and their rows linked.
    for (const what of ["virtual clusters", "spaces", "project secrets"]) {
      const table = page.getByRole("table", { name: `The ${what} of this project` });
      const empty = page.getByText(`No ${what} in this project yet.`);
      await table.or(empty).first().waitFor();
      if (await table.count()) {
        const header = table.getByRole("columnheader", { name: "Name", exact: true });
        assert.equal(await header.getAttribute("aria-sort"), "ascending");
        assert.ok((await table.locator("tbody tr").first().getByRole("link").count()) > 0, `${what}: rows linked`);
      }
    }
    // No project secret yet: the empty list says what to do about it.
    await page.getByText("No project secrets in this project yet. Add one with the link below").waitFor();
    await members.getByRole("link", { name: "amy" }).click();
    await page.waitForURL(/\/console\/k\/users\/amy$/);
    const reset = (await server.request("GET", `${GROUP_PATH}/projects/web`)).json;
    reset.spec.members = [];
    assert.equal((await server.request("PUT", `${GROUP_PATH}/projects/web`, { body: reset })).status, 200);
  });

  it("the project page fits a phone (390 px) without sideways scrolling", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/console/k/projects/web`);
    await createForm().waitFor();
    await audit("phone-project-instances");
    const overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
    assert.ok(Number(overflow) <= 0, `scrolls sideways by ${overflow}px`);
    await page.goto(`${server.url}/console/k/virtualclusterinstances/p-web/dev`);
    await page.getByText("tiny, version 1.0.0 (pinned)").waitFor();
    await page.getByRole("button", { name: "Sleep", exact: true }).waitFor();
    await audit("phone-instance-sleep");
    const overflow2 = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
    assert.ok(Number(overflow2) <= 0, `instance page scrolls sideways by ${overflow2}px`);
  });

  it("deletes the instance from its page: the page says it waits for the platform, which removes what it deployed", async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${server.url}/console/k/virtualclusterinstances/p-web/dev`);
    await page.getByRole("button", { name: "Delete" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Delete" }).click();
    // Back on its project's page, told that the delete is under way, not done.
    await page.waitForURL(/\/console\/k\/projects\/web$/);
    await page
      .getByRole("status")
      .getByText("Deleting virtual cluster dev: the platform first removes what it deployed on cluster c1.")
      .waitFor();
    await page.getByText("No virtual clusters in this project yet.").waitFor({ timeout: 60_000 });
    assert.equal(
      (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/virtualclusterinstances/dev`)).status,
      404,
    );
    // Its namespace on the cluster went before the instance did.
    assert.equal((await kube.kubectl("get", "namespace", "web-dev-vc", "--ignore-not-found", "-o", "name")).trim(), "");
  });

  it("the cluster page shows the access grants the platform keeps on it, a failed one with its reason", async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    // The platform's account holds the gateway's rights only, not cluster access's: writing the
    // ClusterRole is forbidden, as on a cluster whose credentials lack the rights, and the
    // cluster's status says so.
    await post("clusterroletemplates", {
      metadata: { name: "pod-reader" },
      spec: { clusters: ["c1"], rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] },
    });
    await page.goto(`${server.url}/console/k/clusters/c1`);
    await page.getByRole("heading", { name: "Access inside the cluster" }).waitFor();
    const row = page.locator("tr", { has: page.getByRole("link", { name: "pod-reader" }) });
    await row.locator(".badge", { hasText: "failed" }).waitFor({ timeout: 60_000 });
    const stored = (await server.request("GET", `${GROUP_PATH}/clusters/c1`)).json;
    const grant = stored.status.grants.find(
      (g: { clusterRoleTemplate: string }) => g.clusterRoleTemplate === "pod-reader",
    );
    assert.equal(grant.applied, false);
    assert.ok(grant.reason, JSON.stringify(grant));
    assert.match(await row.innerText(), new RegExp(grant.reason));
    // The cluster refuses the platform the lists of its own objects too: said as an error in
    // words above the grants, never as a grant of no template.
    // Said by the status itself (check: List), never by the entry's name alone.
    const lists = stored.status.grants.filter((g: { check?: string }) => g.check === "List");
    assert.ok(lists.length > 0, JSON.stringify(stored.status.grants));
    const grants = stored.status.grants.length - lists.length;
    for (const list of lists) {
      assert.equal(list.reason, "Forbidden", JSON.stringify(list));
      await page
        .getByRole("alert")
        .getByText(`The cluster does not let the platform see the ${list.kind}s it made there`)
        .waitFor();
    }
    assert.equal(await page.locator("td", { hasText: "(list of " }).count(), 0, "no failed list shown as a grant");
    assert.equal(await page.getByText("the platform's own check").count(), 0);
    const table = page.getByRole("table", { name: "The access objects the platform keeps on this cluster" });
    assert.equal(await table.locator("tbody tr").count(), grants);
    const summary = await page.locator("p", { hasText: / applied/ }).innerText();
    assert.equal(summary.replace(/\s+/g, " "), `0 of ${grants} applied ${grants} failed`);
    await audit("cluster-grants");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("alert").first().waitFor();
    const overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
    assert.ok(Number(overflow) <= 0, `cluster page scrolls sideways by ${overflow}px`);
    await page.setViewportSize({ width: 1280, height: 860 });
    // The page tells a failed list by `check`, whatever the entry's name; and a status stored
    // before `check` existed (the name alone) the same way. Served so through the page's own
    // request, as the controller writes neither.
    type Entry = { name: string; check?: string };
    const renamed = (g: Entry) => (g.check ? { ...g, name: `${g.check}-check` } : g);
    const storedBeforeCheck = (g: Entry) => {
      const { check: _, ...old } = g;
      return old;
    };
    for (const edit of [renamed, storedBeforeCheck]) {
      const isCluster = (url: URL) => url.pathname.endsWith("/clusters/c1") && url.searchParams.has("includeObject");
      const serve = async (route: Route) => {
        const response = await route.fetch();
        const table = await response.json();
        for (const row of table.rows) row.object.status.grants = row.object.status.grants.map(edit);
        await route.fulfill({ response, json: table });
      };
      await page.route(isCluster, serve);
      try {
        await page.reload();
        await page.getByRole("heading", { name: "Access inside the cluster" }).waitFor();
        for (const list of lists) {
          await page
            .getByRole("alert")
            .getByText(`The cluster does not let the platform see the ${list.kind}s it made there`)
            .waitFor();
        }
        assert.equal(await page.locator("td", { hasText: /List-check|\(list of / }).count(), 0, edit.name);
        assert.equal(await table.locator("tbody tr").count(), grants, edit.name);
      } finally {
        await page.unroute(isCluster, serve);
      }
    }
    // The template has a page of its own (its kind declares a console presentation).
    await row.getByRole("link", { name: "pod-reader" }).click();
    await page.getByRole("heading", { name: /pod-reader/ }).waitFor();
    await page.getByText("ClusterRoleTemplate pod-reader").waitFor();
  });

  it("a key that may create instances but not list templates is told why beside the template choice, on both forms", async () => {
    // Scoped to the project: its instances, not the cluster-wide template lists (403).
    const key = await userWithKey(server, "pat", { projects: [{ project: "web" }] });
    const project = (await server.request("GET", `${GROUP_PATH}/projects/web`)).json;
    project.spec.members = [...(project.spec.members ?? []), { kind: "User", name: "pat" }];
    const put = await server.request("PUT", `${GROUP_PATH}/projects/web`, { body: project });
    assert.equal(put.status, 200, put.text);
    const listed = await server.request("GET", `${GROUP_PATH}/spacetemplates`, { token: key });
    assert.equal(listed.status, 403, listed.text);
    const pat = await signedInConsole(browser, server.url, key);
    await pat.goto(`${server.url}/console/k/projects/web`);
    for (const heading of ["Create virtual cluster", "Create a space"]) {
      const form = pat.locator("form", { has: pat.getByRole("heading", { name: heading }) });
      await form.locator("p.error", { hasText: /You are not allowed to do this: .*templates/ }).waitFor();
    }
    await pat.context().close();
  });

  it("a list the key may not read says so in words, never as an empty list", async () => {
    // Scoped to one virtual cluster: it reads the project, not the project's spaces or secrets.
    const key = await scopedKey(server, "pat", "pat-one-vc", {
      virtualClusters: [{ project: "web", virtualCluster: "dev" }],
    });
    const listed = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances`, { token: key });
    assert.equal(listed.status, 403, listed.text);
    const pat = await signedInConsole(browser, server.url, key);
    await pat.goto(`${server.url}/console/k/projects/web`);
    await pat
      .getByRole("alert")
      .getByText(/^You may not see the spaces of this project: /)
      .waitFor();
    assert.equal(await pat.getByText("No spaces in this project yet.").count(), 0);
    await pat.context().close();
  });

  it("no serious accessibility finding and no dialog on any page", () => {
    assert.deepEqual(findings, []);
  });
});
