import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium, seriousAxeViolations, signedInConsole } from "../testing/browser.js";
import { projectWithViewer } from "../testing/project-secrets-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");

/** Project secrets in the console, in a real browser: created, listed on the project, values hidden (docs/console.md). */
describe("project secrets in the console (Chromium)", { timeout: 240_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let viewerKey: string;
  const axeFindings: string[] = [];

  before(async () => {
    server = await startTestServer();
    viewerKey = await projectWithViewer(server, "pw");
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  const signedIn = (key: string) => signedInConsole(browser, server.url, key);

  async function audit(page: Page, name: string): Promise<void> {
    for (const v of await seriousAxeViolations(page)) axeFindings.push(`${name}: ${v.id} ${v.help}`);
  }

  it("creates a project secret whose values show only after reveal, listed on its project", async () => {
    const page = await signedIn(server.adminKey);
    await page.goto(`${server.url}/console/k/projectsecrets/new`);
    await page.getByLabel("Name", { exact: true }).fill("api");
    await page.getByLabel("Namespace", { exact: true }).fill("p-web");
    await page.getByLabel("Values (one key=value a line)").fill("token=hunter2");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("heading", { name: "Values" }).waitFor();
    assert.equal(await page.getByText("hunter2").count(), 0, "hidden before reveal");
    await page.getByRole("heading", { name: "Filled in spaces" }).waitFor();
    await audit(page, "project-secret-detail");
    await page.getByRole("button", { name: "Reveal values" }).click();
    await page.getByText("hunter2", { exact: true }).waitFor();
    const stored = await server.request("GET", `${GROUP_PATH}/namespaces/p-web/projectsecrets/api`);
    assert.deepEqual(stored.json.spec.data, { token: b64("hunter2") });

    await page.goto(`${server.url}/console/k/projects/web`);
    const section = page.locator("table", { has: page.getByRole("columnheader", { name: "Source" }) });
    await section.getByRole("link", { name: "api" }).waitFor();
    assert.match(await section.innerText(), /api\s+token/);
    assert.equal(await page.getByText("hunter2").count(), 0, "no values on the project page");
    await audit(page, "project-page-secrets");
  });

  it("shows a sourced secret's source and Synced condition", async () => {
    const made = await server.request("POST", `${GROUP_PATH}/namespaces/p-web/projectsecrets`, {
      body: { metadata: { name: "db" }, spec: { source: { sharedSecret: { name: "db" } } } },
    });
    assert.equal(made.status, 201, made.text);
    const page = await signedIn(server.adminKey);
    await page.goto(`${server.url}/console/k/projects/web`);
    const row = page.getByRole("row", { name: /db/ });
    await row.getByText("platform/db").waitFor();
    await row.getByText("yes").waitFor();
  });

  it("a project viewer sees the secret but none of its values, in the page or its YAML", async () => {
    const page = await signedIn(viewerKey);
    await page.goto(`${server.url}/console/k/projectsecrets/p-web/api`);
    await page.getByText("No values you may read.").waitFor();
    await page.getByText("YAML", { exact: true }).click();
    await page.locator("pre.yaml").waitFor();
    const text = await page.locator("main").innerText();
    assert.doesNotMatch(text, new RegExp(`hunter2|${b64("hunter2")}`));
    assert.equal(await page.getByRole("link", { name: "Edit" }).count(), 0, "a viewer is not offered Edit");
    await audit(page, "project-secret-viewer");
  });

  it("has no serious accessibility findings", () => {
    assert.deepEqual(axeFindings, []);
  });
});
