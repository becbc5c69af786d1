import { parse } from "yaml";
import { ApiError } from "../api/errors.js";
import { API_VERSION, type KubeObject } from "../api/object.js";
import type { Registry } from "../registry/registry.js";
import { systemContext } from "../registry/request-context.js";

/** The template the platform ships (docs/virtual-clusters.md, "The default template"). */
export const DEFAULT_TEMPLATE_NAME = "default";

/** vCluster's published image (its tag is the `version` parameter). */
const VCLUSTER_IMAGE = "ghcr.io/loft-sh/vcluster-oss";

/**
 * One virtual cluster as vCluster deploys it by default, written from its public documentation:
 * a StatefulSet `<name>` of one pod running the control plane (container `syncer`, HTTPS on
 * 8443, ready when /readyz answers), its Service `<name>` labelled `app=vcluster` (443 → 8443)
 * and a headless Service for the StatefulSet, a ServiceAccount with the Role and RoleBinding it
 * needs in its namespace, its configuration (Secret `vc-config-<name>`), and the Secret
 * `<name>-certs` holding the certificate authority the platform made for the instance, so the
 * virtual cluster and the platform's kube configs share one CA.
 *
 * Written as YAML for reading; `\${...}` are the template's references (substitution.ts).
 */
const OBJECTS = `
- apiVersion: v1
  kind: ServiceAccount
  metadata:
    name: "vc-\${instance.name}"
    labels: { app: vcluster, release: "\${instance.name}" }
- apiVersion: rbac.authorization.k8s.io/v1
  kind: Role
  metadata:
    name: "vc-\${instance.name}"
    labels: { app: vcluster, release: "\${instance.name}" }
  rules:
    # What the syncer does in the namespace: the virtual cluster's pods and their services,
    # volumes, configuration and secrets are real objects here.
    - apiGroups: [""]
      resources: [configmaps, secrets, services, pods, pods/attach, pods/portforward, pods/exec, persistentvolumeclaims]
      verbs: [create, delete, patch, update, get, list, watch]
    - apiGroups: [""]
      resources: [pods/status, pods/ephemeralcontainers]
      verbs: [patch, update]
    - apiGroups: [apps]
      resources: [statefulsets, replicasets, deployments]
      verbs: [get, list, watch]
    - apiGroups: [""]
      resources: [endpoints, events, pods/log]
      verbs: [get, list, watch]
- apiVersion: rbac.authorization.k8s.io/v1
  kind: RoleBinding
  metadata:
    name: "vc-\${instance.name}"
    labels: { app: vcluster, release: "\${instance.name}" }
  roleRef: { apiGroup: rbac.authorization.k8s.io, kind: Role, name: "vc-\${instance.name}" }
  subjects:
    - { kind: ServiceAccount, name: "vc-\${instance.name}", namespace: "\${instance.namespace}" }
- apiVersion: v1
  kind: Secret
  metadata:
    name: "\${instance.name}-certs"
    labels: { app: vcluster, release: "\${instance.name}" }
  type: Opaque
  data:
    ca.crt: "\${ca.crt | base64}"
    ca.key: "\${ca.key | base64}"
- apiVersion: v1
  kind: Secret
  metadata:
    name: "vc-config-\${instance.name}"
    labels: { app: vcluster, release: "\${instance.name}" }
  type: Opaque
  data:
    config.yaml: "\${params.config | base64}"
- apiVersion: v1
  kind: Service
  metadata:
    name: "\${instance.name}"
    labels: { app: vcluster, release: "\${instance.name}" }
  spec:
    type: "\${params.serviceType}"
    ports:
      - { name: https, port: 443, targetPort: 8443, protocol: TCP }
    selector: { app: vcluster, release: "\${instance.name}" }
- apiVersion: v1
  kind: Service
  metadata:
    name: "\${instance.name}-headless"
    labels: { app: vcluster, release: "\${instance.name}" }
  spec:
    clusterIP: None
    publishNotReadyAddresses: true
    ports:
      - { name: https, port: 443, targetPort: 8443, protocol: TCP }
    selector: { app: vcluster, release: "\${instance.name}" }
- apiVersion: apps/v1
  kind: StatefulSet
  metadata:
    name: "\${instance.name}"
    labels: { app: vcluster, release: "\${instance.name}" }
  spec:
    replicas: 1
    serviceName: "\${instance.name}-headless"
    podManagementPolicy: Parallel
    selector:
      matchLabels: { app: vcluster, release: "\${instance.name}" }
    template:
      metadata:
        labels: { app: vcluster, release: "\${instance.name}" }
      spec:
        serviceAccountName: "vc-\${instance.name}"
        terminationGracePeriodSeconds: 10
        containers:
          - name: syncer
            image: "\${params.image}:\${params.version}"
            ports:
              - { name: https, containerPort: 8443, protocol: TCP }
            readinessProbe:
              httpGet: { path: /readyz, port: 8443, scheme: HTTPS }
            livenessProbe:
              httpGet: { path: /healthz, port: 8443, scheme: HTTPS }
            env:
              - { name: VCLUSTER_NAME, value: "\${instance.name}" }
              - name: POD_NAME
                valueFrom: { fieldRef: { fieldPath: metadata.name } }
              - name: POD_IP
                valueFrom: { fieldRef: { fieldPath: status.podIP } }
              - name: NODE_NAME
                valueFrom: { fieldRef: { fieldPath: spec.nodeName } }
            volumeMounts:
              - { name: data, mountPath: /data }
              - { name: certs, mountPath: /pki }
              - { name: vcluster-config, mountPath: /var/vcluster }
              - { name: tmp, mountPath: /tmp }
        volumes:
          # The virtual cluster's data lives as long as its pod (no volume claim: this template
          # asks nothing of the cluster's storage); a template version of your own can add one.
          - { name: data, emptyDir: {} }
          - { name: certs, emptyDir: {} }
          - { name: tmp, emptyDir: {} }
          - name: vcluster-config
            secret: { secretName: "vc-config-\${instance.name}" }
`;

/** The default VirtualClusterTemplate, as the platform creates it. */
export function defaultTemplateObject(): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: "VirtualClusterTemplate",
    metadata: { name: DEFAULT_TEMPLATE_NAME },
    spec: {
      displayName: "Default virtual cluster",
      description:
        "One vCluster control plane (StatefulSet), its Service and its certificates, as vCluster deploys it.",
      versions: [
        {
          version: "1.0.0",
          parameters: [
            { name: "version", description: "vCluster version (the image tag).", default: "0.21.0" },
            // The image runs as the ServiceAccount that reads the namespace's Secrets and makes its
            // pods: whoever may create an instance picks one of the images listed here, and only
            // who may write the template's versions (template-authoring.ts) lists another.
            {
              name: "image",
              description: "vCluster image, without its tag: one of the images the template lists.",
              default: VCLUSTER_IMAGE,
              options: [VCLUSTER_IMAGE],
            },
            {
              name: "serviceType",
              description: "How the virtual cluster's Service is exposed.",
              default: "ClusterIP",
              options: ["ClusterIP", "NodePort", "LoadBalancer"],
            },
            { name: "config", description: "vcluster.yaml: vCluster's own configuration (empty: its defaults)." },
          ],
          objects: parse(OBJECTS) as unknown[],
        },
      ],
      // Using it deploys only this into a namespace of a cluster the user may already use.
      access: [{ users: ["*"], verbs: ["get", "use"] }],
    },
  };
}

/**
 * Creates the default template when there is none, at every start: a new installation gets it,
 * and so does one that predates templates. An admin may edit it (it is never overwritten) or
 * delete it (it comes back at the next start; a project's allowedTemplates keeps it unused).
 */
export async function ensureDefaultTemplate(registry: Registry): Promise<void> {
  const store = registry.store("virtualclustertemplates");
  if (await store.read(undefined, DEFAULT_TEMPLATE_NAME)) return;
  try {
    const options = { dryRun: false, fieldManager: "platform-bootstrap", fieldValidation: "Strict" as const };
    await store.create(systemContext(), undefined, defaultTemplateObject(), options);
  } catch (err) {
    // Another replica created it at the same moment.
    if (!(err instanceof ApiError && err.code === 409)) throw err;
  }
}
