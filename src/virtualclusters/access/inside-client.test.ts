import assert from "node:assert/strict";
import { once } from "node:events";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION } from "../../api/endpoint-annotations.js";
import type { KubeObject } from "../../api/object.js";
import { ClusterConnectionError } from "../../clusters/cluster-connection.js";
import { type CertificateAndKey, createCertificateAuthority } from "../../crypto/certificates.js";
import type { Registry } from "../../registry/registry.js";
import type { VirtualClusterCaStore } from "../ca-store.js";
import { insideClient } from "./inside-client.js";

/**
 * The access controller's client to a virtual cluster refuses, at connect time, a host name that
 * resolves to a loopback address, as the gateway does; `--allow-local-endpoints` lets it through.
 */
describe("inside client: the endpoint's host name is checked when it resolves", () => {
  let ca: CertificateAndKey;
  let listener: net.Server;
  let port = 0;
  let connections = 0;

  before(async () => {
    ca = await createCertificateAuthority("vcluster-ca", 1);
    // Counts connections and closes them: whether a connection was attempted is all that matters.
    listener = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    listener.listen(0, "127.0.0.1");
    await once(listener, "listening");
    port = (listener.address() as net.AddressInfo).port;
  });
  after(() => listener.close());

  const instance = (): KubeObject => ({
    apiVersion: "management.platform/v1",
    kind: "VirtualClusterInstance",
    metadata: {
      name: "dev",
      namespace: "p-web",
      annotations: { [VIRTUAL_CLUSTER_ENDPOINT_ANNOTATION]: `https://localhost:${port}` },
    },
    spec: {},
  });
  const cas = { forInstance: async () => ca } as unknown as VirtualClusterCaStore;
  const clientFor = (allowLocal: boolean) =>
    insideClient({} as Registry, cas, instance(), `https://localhost:${port}`, () => undefined, { allowLocal });

  it("a name resolving to 127.0.0.1 is refused before any connection", async () => {
    const api = await clientFor(false);
    const before = connections;
    await assert.rejects(api.list("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"), (err: Error) =>
      /localhost resolves to .*--allow-local-endpoints/.test(String(err?.message ?? err)),
    );
    assert.equal(connections, before);
  });

  it("with --allow-local-endpoints the same name is connected to", async () => {
    const api = await clientFor(true);
    const before = connections;
    await assert.rejects(api.list("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"));
    assert.equal(connections, before + 1);
  });

  it("a CA the platform cannot sign with is CertificateAuthorityUnavailable, naming the instance, never its key", async () => {
    const broken = {
      certPem: ca.certPem,
      keyPem: "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
    };
    const brokenCas = { forInstance: async () => broken } as unknown as VirtualClusterCaStore;
    await assert.rejects(
      insideClient({} as Registry, brokenCas, instance(), `https://localhost:${port}`, () => undefined, {
        allowLocal: true,
      }),
      (err) => {
        assert.ok(err instanceof ClusterConnectionError);
        assert.equal(err.reason, "CertificateAuthorityUnavailable");
        assert.match(
          err.message,
          /^virtual cluster p-web\/dev: the platform could not sign itself a client certificate with its certificate authority: what is stored is not a certificate authority it can use \(\w+\)$/,
        );
        assert.doesNotMatch(err.message, /bm90IGEga2V5/);
        return true;
      },
    );
  });
});
