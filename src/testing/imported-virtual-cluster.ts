import type { CertificateAndKey } from "../crypto/certificates.js";
import { createCluster, putSecret } from "./cluster-status.js";
import { postObject } from "./gateway-fixture.js";
import type { KubeControlPlane, KubeUser } from "./kube-control-plane.js";
import type { TestServer } from "./test-server.js";

/**
 * A virtual cluster as vcluster's chart leaves it on a real control plane (docs/clusters.md),
 * imported into the platform: what the tests of imported instances (their status, sleep mode,
 * the rights inside) start from. No pod runs here: its workload's replicas are made ready by the
 * kubelet stand-in, and its API server, where a test needs one, is a stand-in of the test's.
 */

/** A virtual cluster's Service in namespace team-a, as docs/clusters.md describes it. */
export function virtualClusterService(name: string) {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "team-a", labels: { app: "vcluster" } },
    spec: { ports: [{ port: 443 }], selector: { app: "vcluster", release: name } },
  };
}

/** A virtual cluster's workload in namespace team-a: its pods carry the labels its Service selects. */
export function virtualClusterWorkload(kind: "StatefulSet" | "Deployment", name: string, replicas: number) {
  const labels = { app: "vcluster", release: name };
  return {
    apiVersion: "apps/v1",
    kind,
    metadata: { name, namespace: "team-a" },
    spec: {
      replicas,
      ...(kind === "StatefulSet" ? { serviceName: name } : {}),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "syncer", image: "registry.k8s.io/pause:3.10" }] },
      },
    },
  };
}

/**
 * On `kube`: virtual cluster `dev` in namespace team-a (its Service, its CA `ca` in Secret
 * dev-certs, a StatefulSet of one replica), then the objects of `more`. On the platform: project
 * web, the control plane connected as Cluster prod with the kubeconfig of `platform` (its config
 * in SharedSecret platform/prod), and `dev` imported into web.
 */
export async function importDevVirtualCluster(
  server: TestServer,
  kube: KubeControlPlane,
  platform: KubeUser,
  ca: CertificateAndKey,
  more: object[] = [],
): Promise<void> {
  const items = [
    virtualClusterService("dev"),
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "dev-certs", namespace: "team-a" },
      stringData: { "ca.crt": ca.certPem, "ca.key": ca.keyPem },
    },
    virtualClusterWorkload("StatefulSet", "dev", 1),
    ...more,
  ];
  await kube.apply(JSON.stringify({ apiVersion: "v1", kind: "List", items }));
  await postObject(server, "projects", { metadata: { name: "web" }, spec: {} });
  await putSecret(server, "prod", platform.kubeconfig());
  await createCluster(server, "prod", { config: { secretName: "prod" } });
  await postObject(server, "projects/web/importvirtualcluster", {
    apiVersion: "management.platform/v1",
    kind: "ProjectImportVirtualCluster",
    metadata: { name: "web" },
    sourceVirtualCluster: { name: "dev", namespace: "team-a", cluster: "prod" },
  });
}
