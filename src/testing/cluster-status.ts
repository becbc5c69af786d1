import assert from "node:assert/strict";
import { GROUP_PATH, type TestServer } from "./test-server.js";

/** What the cluster health tests share: a Cluster with its config secret, and waiting for its status. */

/**
 * Polls a cluster until its status matches. Bounded as a guard against hanging, not a timing
 * assertion: a revoked token stays accepted while kube-apiserver's token cache remembers it.
 */
export async function waitForStatus(
  server: TestServer,
  name: string,
  want: (status: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  for (let i = 0; i < 600; i++) {
    const res = await server.request("GET", `${GROUP_PATH}/clusters/${name}`);
    last = res.json?.status ?? {};
    if (want(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`cluster ${name} never reached the expected status; last: ${JSON.stringify(last)}`);
}

/** Creates or replaces SharedSecret platform/`name` with `kubeconfig` under data key `config`. */
export async function putSecret(server: TestServer, name: string, kubeconfig: string): Promise<void> {
  const body = {
    apiVersion: "management.platform/v1",
    kind: "SharedSecret",
    metadata: { name, namespace: "platform" },
    spec: { data: { config: Buffer.from(kubeconfig).toString("base64") } },
  };
  const existing = await server.request("GET", `${GROUP_PATH}/namespaces/platform/sharedsecrets/${name}`);
  const res =
    existing.status === 200
      ? await server.request("PUT", `${GROUP_PATH}/namespaces/platform/sharedsecrets/${name}`, {
          body: { ...body, metadata: { ...body.metadata, resourceVersion: existing.json.metadata.resourceVersion } },
        })
      : await server.request("POST", `${GROUP_PATH}/namespaces/platform/sharedsecrets`, { body });
  assert.ok(res.status === 200 || res.status === 201, res.text);
}

export async function createCluster(server: TestServer, name: string, spec: Record<string, unknown>): Promise<void> {
  const res = await server.request("POST", `${GROUP_PATH}/clusters`, {
    body: { apiVersion: "management.platform/v1", kind: "Cluster", metadata: { name }, spec },
  });
  assert.equal(res.status, 201, res.text);
}
