import assert from "node:assert/strict";
import { request } from "node:https";
import { after, before, describe, it } from "node:test";
import { clusterCannotBeUsed } from "../clusters/cluster-connection.js";
import { FakeClusterApiServer } from "../testing/fake-cluster-apiserver.js";
import { accessKey, connectCluster, postObject } from "../testing/gateway-fixture.js";
import { GROUP_PATH, startTestServer, type TestServer } from "../testing/test-server.js";

const PODS = "/api/v1/namespaces/default/pods";

/**
 * A cluster the gateway cannot use is a 503 that names the cluster and the reason only, for a
 * caller who holds `use` on it but may not read the Cluster: its address, its config secret and
 * its server's words are the Cluster's (docs/gateway.md, "Errors"). Stand-in clusters
 * (testing/fake-cluster-apiserver.ts): one stopped, one whose CA the kubeconfig does not hold, one
 * that stops accepting the platform's token.
 */
describe("cluster gateway: a cluster that cannot be used, for a caller who may not read it", () => {
  let server: TestServer;
  let down: FakeClusterApiServer;
  let up: FakeClusterApiServer;
  let other: FakeClusterApiServer;
  let alice: string;
  /** What no answer to alice may carry: the stand-ins' addresses and the names of the config secrets. */
  let secrets: string[];

  const useOnly = { access: [{ verbs: ["use"], users: ["alice"] }] };
  const get = (path: string) => server.request("GET", path, { token: alice });
  const assertReasonOnly = (res: { status: number; text: string; json: { message?: string } }, want: string) => {
    assert.equal(res.status, 503, res.text);
    assert.equal(res.json.message, want);
    for (const secret of secrets) assert.ok(!res.text.includes(secret), `the answer shows ${secret}: ${res.text}`);
  };

  before(async () => {
    [server, down, up, other] = await Promise.all([
      startTestServer({ allowLocalEndpoints: true }),
      FakeClusterApiServer.start(),
      FakeClusterApiServer.start(),
      FakeClusterApiServer.start(),
    ]);
    await down.stop();
    const b64 = (pem: string) => Buffer.from(pem).toString("base64");
    await connectCluster(server, "down", down, useOnly);
    await connectCluster(server, "rejects", up, useOnly);
    // up's address, other's CA.
    const wrongCa = up.kubeconfig().replace(b64(up.ca.certPem), b64(other.ca.certPem));
    await connectCluster(server, "wrong-ca", { kubeconfig: () => wrongCa }, useOnly);
    await postObject(server, "clusters", {
      metadata: { name: "no-secret" },
      spec: { config: { secretName: "vault-of-no-secret" }, ...useOnly },
    });
    await postObject(server, "users", { metadata: { name: "alice" }, spec: {} });
    await postObject(server, "projects", { metadata: { name: "alpha" }, spec: {} });
    await postObject(server, "namespaces/p-alpha/spaceinstances", {
      metadata: { name: "dev" },
      spec: { clusterRef: { cluster: "down", namespace: "team-dev" }, owner: { user: "alice" } },
    });
    alice = await accessKey(server, "alice");
    secrets = [
      ...[down, up, other].flatMap((c) => [c.url, new URL(c.url).host]),
      "down-kubeconfig",
      "vault-of-no-secret",
    ];
  });
  after(async () => {
    await server?.stop();
    await Promise.all([up?.stop(), other?.stop()]);
  });

  it("alice may use the clusters but not read them", async () => {
    const res = await get(`${GROUP_PATH}/clusters/down`);
    assert.equal(res.status, 403, res.text);
  });

  it("a cluster that does not answer: ClusterUnreachable, without its address", async () => {
    assertReasonOnly(await get(`/kubernetes/cluster/down${PODS}`), clusterCannotBeUsed("down", "ClusterUnreachable"));
  });

  it("a cluster whose certificate the kubeconfig's CA does not verify: TLSVerificationFailed", async () => {
    const res = await get(`/kubernetes/cluster/wrong-ca${PODS}`);
    assertReasonOnly(res, clusterCannotBeUsed("wrong-ca", "TLSVerificationFailed"));
  });

  it("a cluster that refuses the platform's credentials: Unauthorized, not the cluster's 401", async () => {
    assert.equal((await get(`/kubernetes/cluster/rejects${PODS}`)).status, 200);
    const token = up.token;
    up.token = "no-longer-accepted";
    try {
      assertReasonOnly(await get(`/kubernetes/cluster/rejects${PODS}`), clusterCannotBeUsed("rejects", "Unauthorized"));
    } finally {
      up.token = token;
    }
  });

  it("a cluster whose config secret does not exist: ConfigSecretNotFound, without the secret's name", async () => {
    const res = await get(`/kubernetes/cluster/no-secret${PODS}`);
    assertReasonOnly(res, clusterCannotBeUsed("no-secret", "ConfigSecretNotFound"));
  });

  it("a space on a cluster that does not answer: the same words, naming the space's cluster", async () => {
    const res = await get(`/kubernetes/project/alpha/space/dev/api/v1/namespaces/team-dev/configmaps`);
    assertReasonOnly(res, clusterCannotBeUsed("down", "ClusterUnreachable"));
  });

  it("an upgrade (exec) to a cluster that does not answer: the same Status on the socket", async () => {
    const res = await upgrade(server, alice, `/kubernetes/cluster/down${PODS}/p/exec?command=true&stdout=true`);
    assertReasonOnly(res, clusterCannotBeUsed("down", "ClusterUnreachable"));
  });
});

/** Sends a WebSocket upgrade and resolves with the answer the gateway wrote instead of a 101. */
function upgrade(server: TestServer, token: string, path: string) {
  return new Promise<{ status: number; text: string; json: { message?: string } }>((resolve, reject) => {
    const req = request(`${server.url}${path}`, {
      ca: server.caPem,
      headers: {
        authorization: `Bearer ${token}`,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": Buffer.from("0123456789abcdef").toString("base64"),
        "sec-websocket-protocol": "v5.channel.k8s.io",
      },
    });
    req.on("upgrade", () => reject(new Error("the gateway upgraded a request to a cluster that does not answer")));
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text, json: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end();
  });
}
