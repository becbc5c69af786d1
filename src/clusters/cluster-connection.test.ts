import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { stringify } from "yaml";
import type { KubeObject } from "../api/object.js";
import type { Registry } from "../registry/registry.js";
import { ClusterConnectionError, clusterClient } from "./cluster-connection.js";

/**
 * A Cluster's kubeconfig is data anyone allowed to write shared secrets controls: a token file
 * in it would make the server read one of its own files and send it to the named server.
 */
describe("cluster kubeconfigs from shared secrets", () => {
  const dir = mkdtempSync(join(tmpdir(), "platform-cluster-connection-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const serverFile = join(dir, "server-secret");
  writeFileSync(serverFile, "a value only the server may read");

  /** A registry holding one shared secret, platform/kc, with this kubeconfig user. */
  const registryWith = (user: Record<string, string>) => {
    const kubeconfig = stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server: "https://cluster.example.com" } }],
      users: [{ name: "u", user }],
      contexts: [{ name: "c", context: { cluster: "c", user: "u" } }],
      "current-context": "c",
    });
    const secret = { metadata: { name: "kc" }, spec: { data: { config: Buffer.from(kubeconfig).toString("base64") } } };
    return { store: () => ({ read: async () => secret }) } as unknown as Registry;
  };
  const cluster = { metadata: { name: "c" }, spec: { config: { secretName: "kc" } } } as unknown as KubeObject;

  for (const field of ["token-file", "tokenFile"]) {
    it(`refuses a user's ${field} as KubeConfigInvalid, without reading the file`, async () => {
      await assert.rejects(clusterClient(registryWith({ [field]: serverFile }), cluster), (err) => {
        assert.ok(err instanceof ClusterConnectionError);
        assert.equal(err.reason, "KubeConfigInvalid");
        assert.match(err.message, /refers to files on disk/);
        return true;
      });
    });
  }

  it("accepts an inline token", async () => {
    const client = await clusterClient(registryWith({ token: "inline" }), cluster);
    assert.equal(client.server, "https://cluster.example.com");
  });
});
