/**
 * CONSOLE: the web console's list of N.list teams, first page rendered in Chromium (from
 * navigation to the page's 50th row on screen), beside the API LIST of the same teams (one
 * page of 50, and the whole list) from the same server child in the same run.
 */
import { join } from "node:path";
import { browserHelpers, SESSION_COOKIE } from "../../dist/testing/bench-entry.js";
import { type Bench, f, pct, req, spawnChild } from "../harness.js";

const TEAMS = "/kubernetes/management/apis/management.platform/v1/teams";
/** The console's page size (console/src/components/useLiveList.ts). */
const PAGE = 50;

export async function benchConsole(b: Bench): Promise<void> {
  const { dir, N, row } = b;
  // Warm loads measured (a --smoke run only proves the phase works).
  const loads = N.list < 1000 ? 1 : 7;
  const d = await spawnChild(["server", join(dir, "console")], b.childExecArgv);
  b.children.push(d);
  const port = d.first.port as number;
  const key = d.first.key as string;
  await d.ask({ cmd: "fill", n: N.list, kind: "teams" });
  await d.ask({ cmd: "settle" });
  await req(port, key, "GET", `${TEAMS}?limit=${PAGE}`);
  const apiPage: number[] = [];
  const apiWhole: number[] = [];
  for (let i = 0; i < loads; i++) {
    let t = performance.now();
    await req(port, key, "GET", `${TEAMS}?limit=${PAGE}`);
    apiPage.push(performance.now() - t);
    t = performance.now();
    await req(port, key, "GET", TEAMS);
    apiWhole.push(performance.now() - t);
  }
  const rendered = await renderTimes(port, key, Math.min(PAGE, N.list), loads);
  row(
    `CONSOLE ${N.list} teams: first page rendered in Chromium ms, median (first load)`,
    `${f(pct(rendered.warm, 50))} (${f(rendered.cold)})`,
    `API LIST page of ${PAGE}: ${f(pct(apiPage, 50))}; whole LIST: ${f(pct(apiWhole, 50))}`,
    "",
  );
  await d.ask({ cmd: "stop" }).catch(() => {});
}

/** Navigation to the teams list until its rows are on screen: the first load, then warm loads. */
async function renderTimes(
  port: number,
  key: string,
  rows: number,
  loads: number,
): Promise<{ cold: number; warm: number[] }> {
  const cookie = await signIn(port, key);
  const { launchChromium, newConsoleContext } = await browserHelpers();
  const browser = await launchChromium();
  try {
    const context = await newConsoleContext(browser);
    await context.addCookies([
      { name: SESSION_COOKIE, value: cookie, url: `https://127.0.0.1:${port}`, secure: true, httpOnly: true },
    ]);
    const page = await context.newPage();
    const load = async () => {
      const t = performance.now();
      await page.goto(`https://127.0.0.1:${port}/console/k/teams`);
      await page
        .locator("tbody tr")
        .nth(rows - 1)
        .waitFor();
      return performance.now() - t;
    };
    const cold = await load();
    const warm: number[] = [];
    for (let i = 0; i < loads; i++) warm.push(await load());
    return { cold, warm };
  } finally {
    await browser.close();
  }
}

async function signIn(port: number, key: string): Promise<string> {
  const { request } = await import("node:https");
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/console/api/session",
        rejectUnauthorized: false,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        res.resume();
        const set = String(res.headers["set-cookie"] ?? "");
        const value = new RegExp(`${SESSION_COOKIE}=([^;]+)`).exec(set)?.[1];
        if (res.statusCode === 201 && value) resolve(value);
        else reject(new Error(`console sign-in answered ${res.statusCode}`));
      },
    );
    r.on("error", reject);
    r.end(JSON.stringify({ accessKey: key }));
  });
}
