import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { stringify } from "yaml";
import type { KubeObject } from "../api/object.js";
import { DecryptionError } from "../crypto/secret-box.js";
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
  /** The production policy: cluster.example.com is resolved (and checked) only when a connection opens. */
  const ENDPOINTS = { allowLocal: false };
  const cluster = { metadata: { name: "c" }, spec: { config: { secretName: "kc" } } } as unknown as KubeObject;

  for (const field of ["token-file", "tokenFile"]) {
    it(`refuses a user's ${field} as KubeConfigInvalid, without reading the file`, async () => {
      await assert.rejects(clusterClient(registryWith({ [field]: serverFile }), cluster, ENDPOINTS), (err) => {
        assert.ok(err instanceof ClusterConnectionError);
        assert.equal(err.reason, "KubeConfigInvalid");
        assert.match(err.message, /refers to files on disk/);
        return true;
      });
    });
  }

  it("accepts an inline token", async () => {
    const client = await clusterClient(registryWith({ token: "inline" }), cluster, ENDPOINTS);
    assert.equal(client.server, "https://cluster.example.com");
  });

  it("a config secret that does not decrypt is ConfigSecretUnreadable, naming the Cluster and the SharedSecret, not the keys", async () => {
    const failing = {
      store: () => ({
        read: async () => {
          throw new DecryptionError(
            "value was encrypted with key k-old, which is not in the encryption key file",
            "k-old",
          );
        },
      }),
    } as unknown as Registry;
    await assert.rejects(clusterClient(failing, cluster, ENDPOINTS), (err) => {
      assert.ok(err instanceof ClusterConnectionError);
      assert.equal(err.reason, "ConfigSecretUnreadable");
      assert.equal(
        err.message,
        `the config SharedSecret platform/kc of cluster "c" cannot be read: its data does not decrypt with the server's encryption keys`,
      );
      return true;
    });
  });

  it("a Cluster naming no config secret says which Cluster", async () => {
    const none = { metadata: { name: "bare" }, spec: {} } as unknown as KubeObject;
    await assert.rejects(clusterClient(registryWith({ token: "inline" }), none, ENDPOINTS), (err) => {
      assert.ok(err instanceof ClusterConnectionError);
      assert.equal(err.reason, "ConfigSecretNotFound");
      assert.equal(err.message, 'cluster "bare" names no config secret (spec.config.secretName) and is not local');
      return true;
    });
  });
});
