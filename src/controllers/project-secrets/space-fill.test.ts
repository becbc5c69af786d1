import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { API_PREFIX } from "../../api/object.js";
import { createCluster, putSecret } from "../../testing/cluster-status.js";
import { documentedYamlBlocks, manifests } from "../../testing/documented-rights.js";
import { accessKey, postObject } from "../../testing/gateway-fixture.js";
import { type KubeAuditEvent, KubeControlPlane, type PolicyRule } from "../../testing/kube-control-plane.js";
import { REAL_CLUSTER_RESYNC_MS, eventually as retryUntil } from "../../testing/platform-on-control-plane.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../../testing/test-server.js";
import { DATA_WITHHELD } from "./quoted-data.js";

/**
 * Project secrets filled into Secrets inside spaces, end to end on a real control plane
 * (kube-apiserver, controller manager, etcd). The platform's ServiceAccount holds exactly the
 * ClusterRoles docs/spaces.md and docs/project-secrets.md show; the space controller makes each
 * space's namespace and reports it Ready.
 */

const b64 = (s: string) => Buffer.from(s).toString("base64");
const LABEL = "management.platform/project-secret-name";
const MERGE = "application/merge-patch+json";
const PS = `${GROUP_PATH}/namespaces/p-web/projectsecrets`;

function documentedRights(doc: string, heading: string): PolicyRule[] {
  const [yaml] = documentedYamlBlocks(doc, heading);
  const [role] = manifests(yaml ?? "");
  assert.equal(role?.kind, "ClusterRole", `${doc} shows the platform's ClusterRole`);
  return role.rules as PolicyRule[];
}

/** This file's waits: at most 300 tries of `retryUntil`. */
const eventually = <T>(what: string, attempt: () => Promise<T>) => retryUntil(what, attempt, 300);

/** Who the platform is on the cluster: ServiceAccount platform/platform. */
const PLATFORM_USER = "system:serviceaccount:platform:platform";

/** The health check's right (docs/gateway.md), so the cluster shows online. */
const CHECK_RIGHTS: PolicyRule[] = [{ apiGroups: [""], resources: ["services"], verbs: ["list"] }];

interface SpaceEntry {
  space: string;
  secrets: string[];
  synced: boolean;
  reason?: string;
  message?: string;
}

describe("project secrets filled into spaces on a real cluster", () => {
  let server: TestServer;
  let kube: KubeControlPlane;

  /** The data of a Secret on the cluster, decoded. */
  const secretData = async (namespace: string, name: string): Promise<Record<string, string>> => {
    const secret = JSON.parse(await kube.kubectl("get", "secret", name, "-n", namespace, "-o", "json"));
    return Object.fromEntries(
      Object.entries((secret.data ?? {}) as Record<string, string>).map(([k, v]) => [
        k,
        Buffer.from(v, "base64").toString(),
      ]),
    );
  };
  const spacesOf = async (name: string): Promise<SpaceEntry[]> =>
    (await server.request("GET", `${PS}/${name}`)).json?.status?.spaces ?? [];

  async function readySpace(name: string, owner: string, namespace: string): Promise<void> {
    await postObject(server, "namespaces/p-web/spaceinstances", {
      metadata: { name },
      spec: { owner: { user: owner }, clusterRef: { cluster: "c1", namespace } },
    });
    const path = `${GROUP_PATH}/namespaces/p-web/spaceinstances/${name}`;
    await eventually(`space ${name} Ready`, async () =>
      assert.equal((await server.request("GET", path)).json?.status?.phase, "Ready"),
    );
  }

  async function labelledSecret(namespace: string, name: string, projectSecret: string, data: Record<string, string>) {
    await kube.apply(
      JSON.stringify({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name, namespace, labels: { [LABEL]: projectSecret } },
        data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
      }),
    );
  }

  before(async () => {
    kube = await KubeControlPlane.start({ audit: true });
    server = await startTestServer({ clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS, allowLocalEndpoints: true });
    await kube.kubectl("create", "namespace", "platform");
    const platform = await kube.serviceAccount("platform", "platform");
    await kube.grant(platform, {
      rules: documentedRights("docs/spaces.md", "## What the platform needs on the cluster"),
    });
    await kube.grant(platform, {
      rules: documentedRights("docs/project-secrets.md", "### What the platform needs on the cluster"),
    });
    await kube.grant(platform, { rules: CHECK_RIGHTS }, "platform");
    await putSecret(server, "c1", platform.kubeconfig());
    await createCluster(server, "c1", { config: { secretName: "c1" } });
    for (const name of ["alice", "guest"]) await postObject(server, "users", { metadata: { name }, spec: {} });
    await postObject(server, "projects", {
      metadata: { name: "web" },
      spec: { members: [{ kind: "User", name: "alice" }] },
    });
    await postObject(server, "namespaces/platform/sharedsecrets", {
      metadata: { name: "db" },
      spec: { data: { password: b64("pw-1") }, access: [{ verbs: ["get"], users: ["alice"] }] },
    });
    await postObject(
      server,
      "namespaces/p-web/projectsecrets",
      { metadata: { name: "db" }, spec: { source: { sharedSecret: { name: "db" } } } },
      await accessKey(server, "alice"),
    );
    await readySpace("dev", "alice", "web-dev");
    await labelledSecret("web-dev", "app-db", "db", { extra: "the app's own" });
    await kube.kubectl("create", "secret", "generic", "untouched", "-n", "web-dev", "--from-literal=password=mine");
  });
  after(async () => {
    await server?.stop();
    await kube?.stop();
  });

  it("fills a labelled Secret with the project secret's data, and leaves its other keys and other Secrets alone", async () => {
    await eventually("app-db filled", async () =>
      assert.equal((await secretData("web-dev", "app-db")).password, "pw-1"),
    );
    assert.equal((await secretData("web-dev", "app-db")).extra, "the app's own");
    assert.deepEqual(await secretData("web-dev", "untouched"), { password: "mine" });
    const managers = JSON.parse(
      await kube.kubectl("get", "secret", "app-db", "-n", "web-dev", "-o", "json", "--show-managed-fields"),
    ).metadata.managedFields.map((m: { manager: string }) => m.manager);
    assert.ok(managers.includes("platform-project-secrets"), `applied under its field manager: ${managers}`);
    await eventually("status.spaces", async () =>
      assert.deepEqual(
        (await spacesOf("db")).map((s) => [s.space, s.secrets, s.synced]),
        [["dev", ["app-db"], true]],
      ),
    );
  });

  it("a change of the shared secret reaches the Secret in the namespace", async () => {
    const change = await server.request("PATCH", `${GROUP_PATH}/namespaces/platform/sharedsecrets/db`, {
      contentType: MERGE,
      body: { spec: { data: { password: b64("pw-2") } } },
    });
    assert.equal(change.status, 200, change.text);
    await eventually("pw-2 in the cluster", async () =>
      assert.equal((await secretData("web-dev", "app-db")).password, "pw-2"),
    );
  });

  it("repairs a value changed by hand, and fills a Secret labelled later", async () => {
    await kube.kubectl(
      "patch",
      "secret",
      "app-db",
      "-n",
      "web-dev",
      "-p",
      JSON.stringify({ data: { password: b64("by-hand") } }),
    );
    await labelledSecret("web-dev", "later", "db", {});
    await eventually("repaired and filled", async () => {
      assert.equal((await secretData("web-dev", "app-db")).password, "pw-2");
      assert.equal((await secretData("web-dev", "later")).password, "pw-2");
    });
  });

  it("passes that find the Secrets filled write nothing to the space's namespace", async () => {
    await eventually("both filled", async () => {
      assert.equal((await secretData("web-dev", "app-db")).password, "pw-2");
      assert.equal((await secretData("web-dev", "later")).password, "pw-2");
    });
    // Each pass of the fill lists the namespace's labelled Secrets: passes are counted, not timed.
    const byPlatform = (events: KubeAuditEvent[]) =>
      events.filter((e) => e.user.username === PLATFORM_USER && e.objectRef?.namespace === "web-dev");
    const fills = (events: KubeAuditEvent[]) =>
      byPlatform(events).filter((e) => e.verb === "list" && e.objectRef?.resource === "secrets").length;
    const since = async (from: number) => (await kube.auditEvents()).slice(from);
    // One pass begun after both were filled, then three more.
    let from = (await kube.auditEvents()).length;
    await eventually("a pass", async () => assert.ok(fills(await since(from)) >= 1));
    from = (await kube.auditEvents()).length;
    const quiet = await eventually("three passes", async () => {
      const events = await since(from);
      assert.ok(fills(events) >= 3);
      return events;
    });
    assert.deepEqual(
      byPlatform(quiet)
        .filter((e) => e.verb !== "list" && e.verb !== "get")
        .map((e) => `${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name}`),
      [],
    );
  });

  it("gives nothing to a space whose owner may not read the project secret", async () => {
    await readySpace("guest", "guest", "web-guest");
    await labelledSecret("web-guest", "wants-db", "db", { own: "kept" });
    await eventually("OwnerForbidden reported", async () => {
      const entry = (await spacesOf("db")).find((s) => s.space === "guest");
      assert.equal(entry?.reason, "OwnerForbidden");
    });
    assert.deepEqual(await secretData("web-guest", "wants-db"), { own: "kept" });
  });

  it("a refusal quoting the Secret's data is withheld from the project secret's status and Events", async () => {
    // The cluster refuses the fill with a message that quotes the value, as an admission webhook may.
    const value = "the-token-only-members-read";
    await kube.apply(
      JSON.stringify({
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicy",
        metadata: { name: "quote-api" },
        spec: {
          failurePolicy: "Fail",
          matchConstraints: {
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "web-leak" } },
            resourceRules: [
              { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["secrets"] },
            ],
          },
          validations: [
            {
              expression: "!has(object.data) || !('api' in object.data)",
              messageExpression: "'api may not be ' + string(object.data['api'])",
              reason: "Invalid",
            },
          ],
        },
      }),
    );
    await kube.apply(
      JSON.stringify({
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingAdmissionPolicyBinding",
        metadata: { name: "quote-api" },
        spec: { policyName: "quote-api", validationActions: ["Deny"] },
      }),
    );
    await readySpace("leak", "alice", "web-leak");
    // The policy is in force once it refuses a Secret with that key: only then is one labelled.
    await eventually("the policy refuses", async () => {
      const probe = ["create", "secret", "generic", "probe", "-n", "web-leak", "--from-literal=api=x"];
      await assert.rejects(kube.kubectl(...probe, "--dry-run=server"), /api may not be/);
    });
    await postObject(server, "namespaces/p-web/projectsecrets", {
      metadata: { name: "token" },
      spec: { data: { api: b64(value) } },
    });
    await labelledSecret("web-leak", "app-token", "token", { own: "kept" });
    const entry = await eventually("the refusal reported", async () => {
      const found = (await spacesOf("token")).find((s) => s.space === "leak");
      assert.equal(found?.synced, false, JSON.stringify(found));
      return found;
    });
    assert.equal(entry?.reason, "ClusterError", JSON.stringify(entry));
    assert.equal(entry?.message, `Secret app-token: ${DATA_WITHHELD}`);
    const status = (await server.request("GET", `${PS}/token`)).json?.status;
    const events = await server.request("GET", `${API_PREFIX}/api/v1/namespaces/p-web/events`);
    assert.equal(events.status, 200, events.text);
    for (const text of [JSON.stringify(status), events.text]) {
      assert.ok(!text.includes(value) && !text.includes(b64(value)), text);
    }
    assert.deepEqual(await secretData("web-leak", "app-token"), { own: "kept" });
  });

  it("removes its keys from the Secrets once the project secret is deleted", async () => {
    const del = await server.request("DELETE", `${PS}/db`);
    assert.equal(del.status, 200, del.text);
    await eventually("keys removed", async () =>
      assert.deepEqual(await secretData("web-dev", "app-db"), { extra: "the app's own" }),
    );
  });
});
