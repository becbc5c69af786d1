import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/** Debian's Chromium (`.ci/run` installs it); PLATFORM_CHROMIUM overrides the path. */
const CHROMIUM_PATH = process.env.PLATFORM_CHROMIUM ?? "/usr/bin/chromium";

const ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, timeout: 60_000 });
}

/** A context that trusts the test server's self-signed certificate. */
export async function newConsoleContext(
  browser: Browser,
  options: { width?: number; height?: number; colorScheme?: "light" | "dark" } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
    colorScheme: options.colorScheme ?? "light",
    acceptDownloads: true,
  });
  context.setDefaultTimeout(20_000);
  return context;
}

/**
 * A new page in a context of its own (newConsoleContext), signed in to the console at `serverUrl`
 * with access key `key`; close it with `page.context().close()`.
 */
export async function signedInConsole(browser: Browser, serverUrl: string, key: string): Promise<Page> {
  const page = await (await newConsoleContext(browser)).newPage();
  await page.goto(`${serverUrl}/console/`);
  await page.getByLabel("Access key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByText("Signed in as").waitFor();
  return page;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/**
 * axe-core's serious and critical findings on the page as it is. axe is evaluated through
 * the DevTools protocol, which the page's Content-Security-Policy does not apply to.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate("typeof window.axe === 'object'");
  if (!loaded) await page.evaluate(axeSource);
  const violations = (await page.evaluate(
    "window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as AxeViolation[];
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}
