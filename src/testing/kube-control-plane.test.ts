import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeControlPlane } from "./kube-control-plane.js";

/** Retries `check` until it passes (bounded: a hang guard, not a timing assertion); the last failure is reported. */
async function eventually(check: () => Promise<void>): Promise<void> {
  let last: unknown;
  for (let attempt = 0; attempt < 300; attempt++) {
    try {
      return await check();
    } catch (err) {
      last = err;
    }
    await sleep(200);
  }
  throw last;
}

describe("the tests' real Kubernetes control plane", () => {
  let kube: KubeControlPlane;
  before(async () => {
    kube = await KubeControlPlane.start();
  });
  after(async () => {
    await kube?.stop();
  });

  it("is the Kubernetes release tools/kube/go.mod names, reachable with the admin kubeconfig", async () => {
    const version = JSON.parse(await kube.kubectl("get", "--raw", "/version")) as { gitVersion: string };
    assert.equal(version.gitVersion, kube.version);
    assert.match(kube.version, /^v1\.\d+\.\d+$/);
    assert.match(kube.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it("deleting a namespace completes: the namespace controller empties it and drops its finalizer", async () => {
    await kube.kubectl("create", "namespace", "doomed");
    await kube.kubectl("create", "configmap", "settings", "-n", "doomed", "--from-literal=a=b");
    await kube.kubectl("delete", "namespace", "doomed", "--wait=false");
    await eventually(async () => {
      const left = await kube.kubectl("get", "namespaces", "-o", "name");
      assert.doesNotMatch(left, /^namespace\/doomed$/m);
    });
  });

  it("a ServiceAccount's token authenticates it, with only the rights granted, until it is deleted", async () => {
    await kube.kubectl("create", "namespace", "team");
    const sa = await kube.serviceAccount("team", "reader");
    assert.equal(sa.name, "system:serviceaccount:team:reader");
    assert.equal(await sa.kubectl("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"), sa.name);
    await assert.rejects(sa.kubectl("get", "configmaps", "-n", "team"), /Forbidden/);

    await kube.grant(sa, { rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["list"] }] }, "team");
    // The root CA publisher has put kube-root-ca.crt in every namespace.
    await eventually(async () =>
      assert.match(await sa.kubectl("get", "configmaps", "-n", "team"), /kube-root-ca\.crt/),
    );
    await assert.rejects(sa.kubectl("get", "configmaps", "-n", "default"), /Forbidden/);

    await kube.kubectl("delete", "serviceaccount", "reader", "-n", "team");
    await eventually(() => assert.rejects(sa.kubectl("get", "configmaps", "-n", "team"), /Unauthorized/));
  });

  it("a user with a client certificate and no bindings is Forbidden; a bound ClusterRole lets it read", async () => {
    const alice = await kube.user("alice", ["developers"]);
    await assert.rejects(alice.kubectl("get", "namespaces"), /Forbidden.*User "alice" cannot list/s);
    // `view` is an aggregated ClusterRole: empty unless the controller manager fills it.
    await kube.grant(alice, { clusterRole: "view" });
    await eventually(async () => assert.match(await alice.kubectl("get", "configmaps", "-n", "default"), /kube-root/));
    await assert.rejects(
      alice.kubectl("create", "configmap", "x", "-n", "default"),
      /forbidden: User "alice" cannot create resource "configmaps"/,
    );
  });

  it("grant and an applied binding return once the authorizer grants them: the next request is allowed", async () => {
    await kube.kubectl("create", "namespace", "granted");
    const granted = await kube.serviceAccount("granted", "granted");
    await kube.grant(granted, { rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["list"] }] }, "granted");
    assert.equal((await granted.kubectl("auth", "can-i", "list", "secrets", "-n", "granted")).trim(), "yes");

    const applied = await kube.serviceAccount("granted", "applied");
    await kube.apply(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: applied-view
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: system:discovery
subjects:
  - kind: ServiceAccount
    name: applied
    namespace: granted
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: applied-pods
  namespace: granted
rules:
  - apiGroups: [""]
    resources: ["pods"]
    verbs: ["watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: applied-pods
  namespace: granted
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: applied-pods
subjects:
  - kind: ServiceAccount
    name: applied
    namespace: granted
`);
    assert.equal((await applied.kubectl("auth", "can-i", "watch", "pods", "-n", "granted")).trim(), "yes");
  });

  it("the API server alone stops and starts again at the same URL, with its data", async () => {
    const url = kube.url;
    await kube.kubectl("create", "namespace", "kept");
    await kube.stopApiServer();
    await assert.rejects(
      kube.kubectl("get", "namespace", "kept"),
      /connection to the server 127\.0\.0\.1:\d+ was refused/,
    );
    await kube.startApiServer();
    assert.equal(kube.url, url);
    assert.match(await kube.kubectl("get", "namespace", "kept", "-o", "name"), /^namespace\/kept$/m);
  });
  it("with the kubelet stand-in, a StatefulSet's own controller makes its pods and counts them ready, and scales to zero", async () => {
    await kube.kubectl("create", "namespace", "workloads");
    await kube.apply(statefulSet("workloads", "db", 2));
    // No scheduler and no kubelet yet: the controller made a pod, nobody starts it.
    await eventually(async () =>
      assert.match(await kube.kubectl("get", "pods", "-n", "workloads", "-o", "name"), /pod\/db-0/),
    );
    assert.equal(await readyReplicas("workloads", "statefulset", "db"), 0);

    const kubelet = await kube.startKubelet();
    await eventually(async () => assert.equal(await readyReplicas("workloads", "statefulset", "db"), 2));
    const pods = JSON.parse(await kube.kubectl("get", "pods", "-n", "workloads", "-o", "json")) as {
      items: Array<{ spec: { nodeName: string }; status: { phase: string } }>;
    };
    assert.deepEqual(
      pods.items.map((p) => `${p.spec.nodeName} ${p.status.phase}`),
      [`${kubelet.nodeName} Running`, `${kubelet.nodeName} Running`],
    );
    assert.match(await kube.kubectl("get", "node", kubelet.nodeName, "-o", "name"), /^node\//);

    // Scaling down deletes the pods gracefully: the stand-in finishes each deletion, as a kubelet does.
    await kube.kubectl("scale", "statefulset", "db", "-n", "workloads", "--replicas=0");
    await eventually(async () => {
      assert.equal(await kube.kubectl("get", "pods", "-n", "workloads", "-o", "name"), "");
      assert.equal(await readyReplicas("workloads", "statefulset", "db"), 0);
    });
    await kube.kubectl("scale", "statefulset", "db", "-n", "workloads", "--replicas=1");
    await eventually(async () => assert.equal(await readyReplicas("workloads", "statefulset", "db"), 1));
  });

  it("with the kubelet stand-in, a Deployment becomes ready through its ReplicaSet, also after the API server restarts", async () => {
    await kube.kubectl(
      "create",
      "deployment",
      "web",
      "-n",
      "workloads",
      "--image=registry.k8s.io/pause:3.10",
      "--replicas=3",
    );
    await eventually(async () => assert.equal(await readyReplicas("workloads", "deployment", "web"), 3));
    // The stand-in's watch ends with the API server; it lists and watches again once it is back.
    await kube.stopApiServer();
    await kube.startApiServer();
    await kube.kubectl("scale", "deployment", "web", "-n", "workloads", "--replicas=1");
    await kube.kubectl("set", "image", "deployment/web", "-n", "workloads", "pause=registry.k8s.io/pause:3.9");
    // A rollout: a new pod made ready and the old ones' deletion finished, all after the restart.
    await kube.kubectl("rollout", "status", "deployment/web", "-n", "workloads", "--timeout=120s");
    await eventually(async () =>
      assert.equal(
        (await kube.kubectl("get", "pods", "-n", "workloads", "-l", "app=web", "-o", "name"))
          .split("\n")
          .filter(Boolean).length,
        1,
      ),
    );
  });

  /** status.readyReplicas of a workload as its controller wrote it (absent: 0). */
  async function readyReplicas(namespace: string, kind: string, name: string): Promise<number> {
    const out = await kube.kubectl("get", kind, name, "-n", namespace, "-o", "jsonpath={.status.readyReplicas}");
    return Number(out || 0);
  }
});

/** A StatefulSet of `replicas` pods that would run the pause image, were there a container runtime. */
function statefulSet(namespace: string, name: string, replicas: number): string {
  return JSON.stringify({
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace },
    spec: {
      replicas,
      serviceName: name,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "main", image: "registry.k8s.io/pause:3.10" }] },
      },
    },
  });
}

describe("the control plane without its binaries", () => {
  it("fails to start with a message that says how to build them", async () => {
    await assert.rejects(KubeControlPlane.start({ binDir: "/nonexistent/kube" }), (err: Error) => {
      assert.match(err.message, /\/nonexistent\/kube\/kube-apiserver is missing/);
      assert.match(err.message, /tools\/kube\/build\.sh/);
      return true;
    });
  });
});
