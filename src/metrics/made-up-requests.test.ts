import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const G = GROUP_PATH;

/**
 * Every series of /metrics (name and labels, without the value) that requests may add. Left out:
 * the process' own (handles and GC kinds come and go with what node does), and the storage
 * timings, labelled by the stored kinds, which the background controllers read on their own schedule.
 */
const UNRELATED = /^(#|$|process_|nodejs_|platform_sqlite_request_|etcd_request_)/;
function seriesOf(text: string): Set<string> {
  const series = new Set<string>();
  for (const line of text.split("\n")) {
    if (UNRELATED.test(line)) continue;
    series.add(line.slice(0, line.lastIndexOf(" ")));
  }
  return series;
}

/**
 * Label values come from a fixed set (the served resources and subresources, kube's verbs),
 * and a request answered 401 or 429 is counted by verb and code only: no caller grows /metrics.
 */
describe("metrics of requests a caller makes up", () => {
  let s: TestServer;
  before(async () => {
    // A low failed-authentication limit, so that the bad keys below are answered 429 too.
    s = await startTestServer({ maxFailedAuthPerMinute: 20 });
    assert.equal(
      (await s.request("POST", `${G}/teams`, { body: { metadata: { name: "real" }, spec: {} } })).status,
      201,
    );
  });
  after(() => s?.stop());

  const scrape = async () => {
    const r = await s.request("GET", "/metrics", { headers: { accept: "text/plain" } });
    assert.equal(r.status, 200, r.text);
    return r.text;
  };

  /** One round of made-up requests, each name unique to `n`; the codes they got. */
  const madeUp = async (n: number): Promise<Set<number>> => {
    const codes = new Set<number>();
    const answers = await Promise.all([
      s.request("GET", `${G}/teams/real/made${n}up`, { token: null }),
      s.request("GET", `${G}/made${n}kind/x/sub${n}`, { token: `wrong-key-${n}-${"x".repeat(40)}` }),
      s.request("POST", `${G}/namespaces/p${n}/teams/x/anything${n}`, { token: null, body: {} }),
      s.request("GET", `${G}/teams/real/made${n}up`),
      s.request("PATCH", `${G}/teams/real/sub${n}`, { body: {} }),
      s.request("GET", `/made/up/path${n}`, { token: null }),
      s.request("GET", `/kubernetes/cluster/made${n}up/api`, { token: `wrong-key-${n}-${"y".repeat(40)}` }),
    ]);
    for (const r of answers) codes.add(r.status);
    return codes;
  };

  it("keeps /metrics to the series it had after 500 made-up requests", async () => {
    // A first round makes the series every shape of refusal counts in.
    const codes = new Set<number>();
    for (let n = 0; n < 25; n++) for (const c of await madeUp(n)) codes.add(c);
    await scrape(); // the scrape's own series
    const before = await scrape();
    for (let n = 25; n < 110; n++) for (const c of await madeUp(n)) codes.add(c);
    const after = await scrape();
    for (const code of [401, 404, 429]) assert.ok(codes.has(code), `no ${code} among ${[...codes]}`);
    const added = [...seriesOf(after)].filter((x) => !seriesOf(before).has(x));
    assert.deepEqual(added, []);
    assert.doesNotMatch(after, /made\d+up|made\d+kind|sub\d+|anything\d+|path\d+|"p\d+"/);
    // The refusals are still counted, by verb and code.
    assert.match(
      after,
      /apiserver_request_total\{verb="GET",group="",version="",resource="",subresource="",scope="",component="apiserver",dry_run="",code="401"\}/,
    );
    assert.match(after, /apiserver_request_total\{[^}]*resource="teams",subresource="other",[^}]*code="404"\}/);
  });
});
