import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { startTestServer, type TestServer } from "../testing/test-server.js";

const docs = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), "utf8");
/** Series Prometheus makes itself, not the server. */
const PROMETHEUS_OWN = new Set(["up"]);

/** Every metric a PromQL expression selects: in these files each selector carries `{job="platform"…}`. */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ""));
}

describe("the dashboard and alert rules of docs/operations.md", () => {
  let s: TestServer;
  let exported: Set<string>;
  before(async () => {
    s = await startTestServer();
    const r = await s.request("GET", "/metrics", { headers: { accept: "text/plain" } });
    assert.equal(r.status, 200);
    exported = new Set([...r.text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  });
  after(() => s?.stop());

  const check = (exprs: string[]) => {
    const used = new Set(exprs.flatMap(metricsIn));
    assert.ok(used.size >= 5, `found only ${[...used].join(", ")}`);
    const missing = [...used].filter((m) => !exported.has(m) && !PROMETHEUS_OWN.has(m));
    assert.deepEqual(missing, [], "metrics used but not exported");
  };

  it("the Grafana dashboard uses only exported metrics", () => {
    const dashboard = JSON.parse(docs("grafana-dashboard.json")) as {
      panels: Array<{ targets: Array<{ expr: string }> }>;
    };
    check(dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)));
  });

  it("the alert rules use only exported metrics", () => {
    const rules = parse(docs("prometheus-alerts.yaml")) as {
      groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
    };
    const all = rules.groups.flatMap((g) => g.rules);
    for (const name of [
      "PlatformHighErrorRate",
      "PlatformHighLatency",
      "PlatformStorageUnavailable",
      "PlatformClusterOffline",
      "PlatformWatchCacheLag",
      "PlatformUndecodableStoredObject",
      "PlatformInformerNotWatching",
    ]) {
      assert.ok(
        all.some((r) => r.alert === name),
        name,
      );
    }
    check(all.map((r) => r.expr));
  });

  it("the metrics table lists every metric the server exports", () => {
    const listed = new Set([...docs("operations.md").matchAll(/^\| `([a-z_:]+)` \|/gm)].map((m) => m[1]!));
    // prom-client's defaults are one row, `process_*`, `nodejs_*`.
    const own = [...exported].filter((m) => !m.startsWith("process_") && !m.startsWith("nodejs_"));
    assert.ok(own.length >= 10, `exported only ${own.join(", ")}`);
    assert.deepEqual(
      own.filter((m) => !listed.has(m)),
      [],
      "exported but not in docs/operations.md's table",
    );
  });

  it("every metric the table lists is exported", () => {
    const listed = [...docs("operations.md").matchAll(/^\| `([a-z_:]+)` \|/gm)].map((m) => m[1]!);
    assert.ok(listed.length >= 10, `listed only ${listed.join(", ")}`);
    assert.deepEqual(
      listed.filter((m) => !exported.has(m)),
      [],
      "in docs/operations.md's table but not exported",
    );
  });
});
