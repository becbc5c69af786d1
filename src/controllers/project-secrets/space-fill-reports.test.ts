import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { API_PREFIX } from "../../api/object.js";
import { createCluster, putSecret } from "../../testing/cluster-status.js";
import { documentedYamlBlocks, manifests } from "../../testing/documented-rights.js";
import { postObject } from "../../testing/gateway-fixture.js";
import { KubeControlPlane, type KubeUser, type PolicyRule } from "../../testing/kube-control-plane.js";
import {
  documentedPlatformRole,
  HEALTH_CHECK_RIGHTS,
  eventually as retryUntil,
} from "../../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";

/**
 * A space whose Secrets the platform may not list (its identity on the cluster lacks the rights
 * of docs/project-secrets.md) is reported once, not at every resync: one Event on the space, one
 * log line, whatever the number of passes; and once more each when the right is granted. On a
 * real control plane, whose audit log counts the fill's passes (one list of Secrets each).
 */

/** This file's waits: at most 300 tries of `retryUntil`. */
const eventually = <T>(what: string, attempt: () => Promise<T>) => retryUntil(what, attempt, 300);
/** The rights docs/project-secrets.md says the fill needs, as written there. */
function projectSecretRights(): PolicyRule[] {
  const [yaml] = documentedYamlBlocks("docs/project-secrets.md", "### What the platform needs on the cluster");
  const [role] = manifests(yaml ?? "");
  assert.equal(role?.kind, "ClusterRole");
  return role.rules as PolicyRule[];
}

/** Passes of the fill seen before counting: several resyncs and retries. */
const PASSES = 6;

interface LogLine {
  level: number;
  msg: string;
  controller?: string;
  key?: string;
  err?: { message?: string };
}

interface Event {
  type: string;
  reason: string;
  message: string;
  count?: number;
}

describe("a space the platform may not fill is reported once", () => {
  let kube: KubeControlPlane;
  let server: TestServer;
  let platform: KubeUser;
  const lines: LogLine[] = [];
  const fillLines = () => lines.filter((l) => l.controller === "project-secret-spaces" && l.key === "p-web/dev");
  /** The fill's lists of Secrets in the space's namespace, as the cluster answered them. */
  const lists = async () =>
    (await kube.auditEvents()).filter(
      (e) => e.verb === "list" && e.objectRef?.resource === "secrets" && e.objectRef.namespace === "web-dev",
    );
  /**
   * The fill's Events about the space. Called once the cluster saw later passes than the one that
   * reported: record() was called then, but the Event's write may still be on its way.
   */
  const eventsOfDev = async (): Promise<Event[]> => {
    await server.events.recorder.flush();
    const selector = encodeURIComponent("involvedObject.kind=SpaceInstance,involvedObject.name=dev");
    const res = await server.request("GET", `${API_PREFIX}/api/v1/namespaces/p-web/events?fieldSelector=${selector}`);
    assert.equal(res.status, 200, res.text);
    return res.json.items.filter((e: Event) => e.reason.startsWith("ProjectSecrets"));
  };

  before(async () => {
    kube = await KubeControlPlane.start({ audit: true });
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).trim().split("\n")) lines.push(JSON.parse(line));
        done();
      },
    });
    // Short resyncs: the test counts passes, never waits for a time.
    server = await startTestServer({
      clusterCheckIntervalMs: 200,
      allowLocalEndpoints: true,
      logLevel: "warn",
      logDestination: sink,
    });
    await kube.kubectl("create", "namespace", "platform");
    platform = await kube.serviceAccount("platform", "platform");
    // What spaces need, not what project secrets need: no list of Secrets.
    await kube.grant(platform, { rules: documentedPlatformRole("docs/spaces.md") });
    await kube.grant(platform, { rules: HEALTH_CHECK_RIGHTS }, "platform");
    await putSecret(server, "c1", platform.kubeconfig());
    await createCluster(server, "c1", { config: { secretName: "c1" } });
    await postObject(server, "users", { metadata: { name: "alice" }, spec: {} });
    await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
    await postObject(server, "namespaces/p-web/projectsecrets", {
      metadata: { name: "db" },
      spec: { data: { password: Buffer.from("pw").toString("base64") } },
    });
    await postObject(server, "namespaces/p-web/spaceinstances", {
      metadata: { name: "dev" },
      spec: { owner: { user: "alice" }, clusterRef: { cluster: "c1", namespace: "web-dev" } },
    });
    await eventually("space dev Ready", async () =>
      assert.equal(
        (await server.request("GET", `${GROUP_PATH}/namespaces/p-web/spaceinstances/dev`)).json?.status?.phase,
        "Ready",
      ),
    );
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("one Event on the space and one log line over many refused passes, each naming the cluster", async () => {
    await eventually(`${PASSES} refused lists`, async () => {
      const refused = (await lists()).filter((e) => e.responseStatus?.code === 403);
      assert.ok(refused.length >= PASSES, `${refused.length} so far`);
    });
    const events = await eventsOfDev();
    assert.deepEqual(
      events.map((e) => [e.type, e.reason, e.count]),
      [["Warning", "ProjectSecretsNotFilled", 1]],
    );
    assert.match(
      events[0]!.message,
      /cannot be filled into namespace "web-dev": .*on the cluster at "c1" \(403 Forbidden\)/,
    );
    assert.match(events[0]!.message, /cannot list resource "secrets"/);
    const logged = fillLines();
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.equal(logged[0]!.level, 50);
    assert.match(logged[0]!.err?.message ?? "", /on the cluster at "c1" \(403 Forbidden\)/);
  });

  it("once the right is granted: one more Event and one more log line, however many passes follow", async () => {
    await kube.grant(platform, { rules: projectSecretRights() });
    const before = (await lists()).length;
    await eventually(`${PASSES} allowed lists`, async () => {
      const allowed = (await lists()).slice(before).filter((e) => e.responseStatus?.code === 200);
      assert.ok(allowed.length >= PASSES, `${allowed.length} so far`);
    });
    assert.deepEqual((await eventsOfDev()).map((e) => [e.type, e.reason, e.count]).sort(), [
      ["Normal", "ProjectSecretsFilled", 1],
      ["Warning", "ProjectSecretsNotFilled", 1],
    ]);
    assert.deepEqual(
      fillLines().map((l) => [l.level, l.msg.replace(/\d+/g, "N")]),
      [
        [50, "project-secret-spaces failed on p-web/dev; retrying in N ms (the same failure again is not logged)"],
        [40, "project-secret-spaces succeeded on p-web/dev after N failed attempts"],
      ],
    );
  });
});
