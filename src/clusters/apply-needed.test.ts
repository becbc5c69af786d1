import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyNeeded } from "./apply-needed.js";
import type { RawObject } from "./object-client.js";

/**
 * The resync's compare against objects as kube-apiserver returns them after a server-side apply
 * by field manager `platform` (managedFields and server defaults as a real API server writes
 * them: a port's key with its defaulted protocol, an atomic list owned whole, a Secret's
 * stringData kept as data).
 */

const MANAGER = "platform";

/** The Service the platform applies, and the same Service as the cluster holds it. */
const service = (): RawObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "vc", namespace: "team", labels: { app: "vcluster" } },
  spec: { ports: [{ name: "https", port: 443, targetPort: 8443 }], selector: { app: "vc" } },
});
const liveService = (): RawObject => ({
  metadata: {
    name: "vc",
    namespace: "team",
    uid: "0b5e",
    resourceVersion: "42",
    labels: { app: "vcluster" },
    managedFields: [
      {
        manager: MANAGER,
        operation: "Apply",
        apiVersion: "v1",
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:metadata": { "f:labels": { "f:app": {} } },
          "f:spec": {
            "f:ports": {
              'k:{"port":443,"protocol":"TCP"}': { ".": {}, "f:name": {}, "f:port": {}, "f:targetPort": {} },
            },
            "f:selector": {},
          },
        },
      },
    ],
  },
  spec: {
    clusterIP: "10.96.30.19",
    clusterIPs: ["10.96.30.19"],
    internalTrafficPolicy: "Cluster",
    ipFamilies: ["IPv4"],
    ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: 8443 }],
    selector: { app: "vc" },
    sessionAffinity: "None",
    type: "ClusterIP",
  },
});

const rolebinding = (): RawObject => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "RoleBinding",
  metadata: { name: "owner", namespace: "team" },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "admin" },
  subjects: [{ kind: "Group", name: "devs" }],
});
const liveRolebinding = (fields: Record<string, unknown> = { "f:roleRef": {}, "f:subjects": {} }) => ({
  metadata: {
    name: "owner",
    namespace: "team",
    managedFields: [
      {
        manager: MANAGER,
        operation: "Apply",
        apiVersion: "rbac.authorization.k8s.io/v1",
        fieldsType: "FieldsV1",
        fieldsV1: fields,
      },
    ],
  },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "admin" },
  // The API server defaults a subject's apiGroup.
  subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "devs" }],
});

const secret = (fields: Record<string, unknown>, data: Record<string, string>) => ({
  metadata: {
    name: "db",
    namespace: "team",
    managedFields: [
      { manager: "someone", operation: "Update", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: { "f:type": {} } },
      { manager: MANAGER, operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1: fields },
    ],
  },
  type: "Opaque",
  data,
});
const base64 = (s: string) => Buffer.from(s).toString("base64");

describe("applyNeeded: whether a server-side apply would change the object on the cluster", () => {
  it("an object as the last apply left it, with the server's defaults added, needs none", () => {
    assert.equal(applyNeeded(service(), liveService(), MANAGER), undefined);
    assert.equal(applyNeeded(rolebinding(), liveRolebinding(), MANAGER), undefined);
  });

  it("a missing object is applied", () => {
    assert.deepEqual(applyNeeded(service(), undefined, MANAGER), { reason: "Missing", path: "" });
  });

  it("a desired value that changed is applied, in a keyed list element too", () => {
    const desired = service();
    (desired.spec as { ports: Array<Record<string, unknown>> }).ports[0]!.targetPort = 9443;
    assert.deepEqual(applyNeeded(desired, liveService(), MANAGER), {
      reason: "Differs",
      path: "spec.ports[0].targetPort",
    });
    const relabelled = service();
    relabelled.metadata!.labels = { app: "other" };
    assert.deepEqual(applyNeeded(relabelled, liveService(), MANAGER), {
      reason: "Differs",
      path: "metadata.labels.app",
    });
  });

  it("a field the desired object no longer has, and the manager owns, is applied (the apply removes it)", () => {
    const desired = service();
    delete desired.metadata!.labels;
    assert.deepEqual(applyNeeded(desired, liveService(), MANAGER), { reason: "WouldRemove", path: "metadata.labels" });
    const fewer = service();
    (fewer.spec as Record<string, unknown>).ports = [{ name: "https", port: 8443 }];
    assert.equal(applyNeeded(fewer, liveService(), MANAGER)?.reason, "NotOwned");
  });

  it("a field changed by someone else is applied: its value differs, or it is no longer the manager's", () => {
    const edited = liveRolebinding({ "f:roleRef": {} });
    assert.deepEqual(applyNeeded(rolebinding(), edited, MANAGER), { reason: "NotOwned", path: "subjects" });
    const appended = liveRolebinding();
    (appended.subjects as unknown[]).push({ kind: "User", name: "mallory" });
    assert.deepEqual(applyNeeded(rolebinding(), appended, MANAGER), { reason: "Differs", path: "subjects" });
    const renamed = liveService();
    (renamed.spec as { ports: Array<Record<string, unknown>> }).ports[0]!.port = 80;
    assert.deepEqual(applyNeeded(service(), renamed, MANAGER), { reason: "Differs", path: "spec.ports[0]" });
    const unlabelled = liveService();
    delete unlabelled.metadata!.labels;
    assert.deepEqual(applyNeeded(service(), unlabelled, MANAGER), { reason: "Differs", path: "metadata.labels" });
  });

  it("an object the manager never applied is applied once its desired fields are not the manager's", () => {
    const other = liveService();
    const fields = other.metadata!.managedFields as Array<{ manager: string }>;
    fields[0]!.manager = "kubectl";
    assert.deepEqual(applyNeeded(service(), other, MANAGER), { reason: "NotOwned", path: "spec" });
    // Applied under another version of the kind: not comparable, applied again.
    const older = liveService();
    (older.metadata!.managedFields as Array<{ apiVersion: string }>)[0]!.apiVersion = "v1beta1";
    assert.equal(applyNeeded(service(), older, MANAGER)?.reason, "NotOwned");
  });

  it("elements others added to a keyed list or a set are theirs: no apply", () => {
    const desired = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: "team", finalizers: ["platform/x"] },
      spec: { containers: [{ name: "main", image: "busybox" }] },
    };
    const live = {
      metadata: {
        name: "p",
        namespace: "team",
        finalizers: ["platform/x", "someone/y"],
        managedFields: [
          {
            manager: MANAGER,
            operation: "Apply",
            apiVersion: "v1",
            fieldsType: "FieldsV1",
            fieldsV1: {
              "f:metadata": { "f:finalizers": { 'v:"platform/x"': {} } },
              "f:spec": { "f:containers": { 'k:{"name":"main"}': { ".": {}, "f:image": {}, "f:name": {} } } },
            },
          },
        ],
      },
      spec: {
        containers: [
          { name: "main", image: "busybox", imagePullPolicy: "Always" },
          { name: "sidecar", image: "envoy" },
        ],
      },
    };
    assert.equal(applyNeeded(desired, live, MANAGER), undefined);
    const more = { ...desired, metadata: { ...desired.metadata, finalizers: ["platform/x", "platform/z"] } };
    assert.deepEqual(applyNeeded(more, live, MANAGER), { reason: "NotOwned", path: "metadata.finalizers[1]" });
    const image = { ...desired, spec: { containers: [{ name: "main", image: "alpine" }] } };
    assert.deepEqual(applyNeeded(image, live, MANAGER), { reason: "Differs", path: "spec.containers[0].image" });
  });

  it("a quantity matches the string the cluster keeps for it: a number, or a string in another form", () => {
    const quota = (hard: Record<string, unknown>) => ({
      apiVersion: "v1",
      kind: "ResourceQuota",
      metadata: { name: "quota", namespace: "team" },
      spec: { hard },
    });
    const live = {
      metadata: {
        name: "quota",
        namespace: "team",
        managedFields: [
          {
            manager: MANAGER,
            operation: "Apply",
            apiVersion: "v1",
            fieldsType: "FieldsV1",
            fieldsV1: { "f:spec": { "f:hard": { "f:pods": {}, "f:requests.cpu": {}, "f:requests.memory": {} } } },
          },
        ],
      },
      spec: { hard: { pods: "10", "requests.cpu": "500m", "requests.memory": "1Gi" } },
    };
    assert.equal(
      applyNeeded(quota({ pods: 10, "requests.cpu": 0.5, "requests.memory": 2 ** 30 }), live, MANAGER),
      undefined,
    );
    // As written in a template, kept by kube-apiserver in its canonical form.
    assert.equal(
      applyNeeded(quota({ pods: "1e1", "requests.cpu": "0.5", "requests.memory": "1024Mi" }), live, MANAGER),
      undefined,
    );
    assert.deepEqual(
      applyNeeded(quota({ pods: 11, "requests.cpu": "500m", "requests.memory": "1Gi" }), live, MANAGER),
      { reason: "Differs", path: "spec.hard.pods" },
    );
    assert.deepEqual(
      applyNeeded(quota({ pods: "10", "requests.cpu": "501m", "requests.memory": "1Gi" }), live, MANAGER),
      { reason: "Differs", path: "spec.hard.requests.cpu" },
    );
    assert.deepEqual(
      applyNeeded(quota({ pods: "10", "requests.cpu": "500m", "requests.memory": "1G" }), live, MANAGER),
      { reason: "Differs", path: "spec.hard.requests.memory" },
    );
  });

  it("a limit range's bounds and a container's resources are quantities; a ConfigMap's value is kept as written", () => {
    const owner = (fieldsV1: unknown) => [
      { manager: MANAGER, operation: "Apply", apiVersion: "v1", fieldsType: "FieldsV1", fieldsV1 },
    ];
    const limitRange = (cpu: string, memory: string) => ({
      apiVersion: "v1",
      kind: "LimitRange",
      metadata: { name: "limits", namespace: "team" },
      spec: { limits: [{ type: "Container", default: { cpu, memory }, max: { cpu } }] },
    });
    const liveLimitRange = {
      metadata: { name: "limits", namespace: "team", managedFields: owner({ "f:spec": { "f:limits": {} } }) },
      spec: {
        limits: [
          { type: "Container", default: { cpu: "1", memory: "1Gi" }, defaultRequest: { cpu: "1" }, max: { cpu: "1" } },
        ],
      },
    };
    assert.equal(applyNeeded(limitRange("1000m", "1024Mi"), liveLimitRange, MANAGER), undefined);
    assert.deepEqual(applyNeeded(limitRange("1000m", "1000Mi"), liveLimitRange, MANAGER), {
      reason: "Differs",
      path: "spec.limits[0].default.memory",
    });

    const pod = (cpu: string) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: "team" },
      spec: { containers: [{ name: "main", resources: { limits: { cpu } } }] },
    });
    const livePod = {
      metadata: {
        name: "p",
        namespace: "team",
        managedFields: owner({
          "f:spec": {
            "f:containers": {
              'k:{"name":"main"}': { ".": {}, "f:name": {}, "f:resources": { "f:limits": { "f:cpu": {} } } },
            },
          },
        }),
      },
      spec: { containers: [{ name: "main", resources: { limits: { cpu: "1" }, requests: { cpu: "1" } } }] },
    };
    assert.equal(applyNeeded(pod("1000m"), livePod, MANAGER), undefined);
    assert.deepEqual(applyNeeded(pod("2"), livePod, MANAGER), {
      reason: "Differs",
      path: "spec.containers[0].resources.limits.cpu",
    });

    // A string field that is no quantity: "1" on the cluster is not the "1000m" wanted.
    const configMap = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "settings", namespace: "team" },
      data: { cpu: "1000m" },
    };
    const liveConfigMap = {
      metadata: { name: "settings", namespace: "team", managedFields: owner({ "f:data": { "f:cpu": {} } }) },
      data: { cpu: "1" },
    };
    assert.deepEqual(applyNeeded(configMap, liveConfigMap, MANAGER), { reason: "Differs", path: "data.cpu" });
  });

  it("a Secret's stringData is compared with its data, which is where the cluster keeps it", () => {
    const desired = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "db", namespace: "team" },
      stringData: { greeting: "hi" },
    };
    const fields = { "f:stringData": { "f:greeting": {} } };
    assert.equal(applyNeeded(desired, secret(fields, { greeting: base64("hi") }), MANAGER), undefined);
    assert.deepEqual(applyNeeded(desired, secret(fields, { greeting: base64("hello") }), MANAGER), {
      reason: "Differs",
      path: "stringData.greeting",
    });
  });

  it("keys the manager put into a Secret it does not own: kept, or removed when no longer desired", () => {
    const filled = { "f:data": { "f:password": {} } };
    const desired = (data?: Record<string, string>) => ({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "db", namespace: "team" },
      ...(data ? { data } : {}),
    });
    const live = secret(filled, { password: base64("s3cret"), theirs: base64("x") });
    assert.equal(applyNeeded(desired({ password: base64("s3cret") }), live, MANAGER), undefined);
    assert.deepEqual(applyNeeded(desired(), live, MANAGER), { reason: "WouldRemove", path: "data" });
    // Nothing of the manager's left to remove, nothing to put: no apply.
    assert.equal(applyNeeded(desired(), secret({}, { theirs: base64("x") }), MANAGER), undefined);
  });
});
