// biome-ignore lint/suspicious/noTemplateCurlyInString: a template reference, not JavaScript
const INSTANCE_NAME = "${instance.name}";

/**
 * Template objects of a virtual cluster that the status controller can judge on a cluster where
 * no pod runs: the Service it finds the virtual cluster by, and a Deployment of the instance's
 * name, which the kubelet stand-in (kube/kubelet-stand-in.ts) reports ready.
 */
export const STAND_IN_WORKLOAD = [
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: INSTANCE_NAME, labels: { app: "vcluster" } },
    spec: { ports: [{ port: 443 }], selector: { app: `vc-${INSTANCE_NAME}` } },
  },
  {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: INSTANCE_NAME },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: `vc-${INSTANCE_NAME}` } },
      template: {
        metadata: { labels: { app: `vc-${INSTANCE_NAME}` } },
        spec: { containers: [{ name: "syncer", image: "registry.k8s.io/pause:3.10" }] },
      },
    },
  },
];
