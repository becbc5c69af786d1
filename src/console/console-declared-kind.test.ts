import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium, newConsoleContext } from "../testing/browser.js";
import { testKindList } from "../testing/kinds/index.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const SECRET = "gizmo-secret-shown-nowhere";

/**
 * The console shows a kind it has never heard of: a test kind declared only in its folder
 * (src/testing/kinds/gizmo/) and added to the server's registration list. Its menu entry, list
 * column, form field and access rules come from the server, and its secret field is masked.
 */
describe("web console: a kind declared only in its folder", { timeout: 240_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;

  before(async () => {
    server = await startTestServer({ kinds: testKindList });
    const created = await server.request("POST", `${GROUP_PATH}/gizmos`, {
      body: {
        metadata: { name: "g1" },
        spec: { color: "teal", secret: SECRET, access: [{ verbs: ["get"], users: ["alice"] }] },
      },
    });
    assert.equal(created.status, 201, created.text);
    browser = await launchChromium();
    page = await (await newConsoleContext(browser)).newPage();
    await page.goto(`${server.url}/console/`);
    await page.getByLabel("Access key").fill(server.adminKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Signed in as").waitFor();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  it("lists it from the menu, with its Table column and the server's cells", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Gizmos" }).click();
    await page.getByRole("heading", { name: "Gizmos", level: 1 }).waitFor();
    await page.getByRole("columnheader", { name: /^Color/ }).waitFor();
    const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "g1" }) });
    assert.equal(await row.locator('td[data-label="Color"]').innerText(), "teal");
  });

  it("shows its column and access rules on its page, and masks its secret field", async () => {
    await page.goto(`${server.url}/console/k/gizmos/g1`);
    await page.getByRole("heading", { name: "Access" }).waitFor();
    const fact = page.locator(".facts div", { has: page.getByText("Color", { exact: true }) }).locator("dd");
    assert.equal(await fact.innerText(), "teal");
    assert.match(await page.locator("ul.rules").innerText(), /get · users: alice/);
    await page.getByText("YAML", { exact: true }).click();
    const yaml = await page.locator("pre.yaml").innerText();
    assert.match(yaml, /secret: \(hidden\)/);
    assert.ok(!(await page.content()).includes(SECRET), "the secret value is nowhere on the page");
  });

  it("edits its declared fields and access rules", async () => {
    await page.goto(`${server.url}/console/k/gizmos/g1/edit`);
    await page.getByText("Access rules", { exact: true }).waitFor();
    assert.equal(await page.getByLabel("Color", { exact: true }).inputValue(), "teal");
    await page.getByLabel("Color", { exact: true }).fill("amber");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByRole("heading", { name: "Access" }).waitFor();
    const stored = await server.request("GET", `${GROUP_PATH}/gizmos/g1`);
    assert.equal(stored.json.spec.color, "amber");
    assert.equal(stored.json.spec.secret, SECRET, "the masked value was not written back");
  });
});
