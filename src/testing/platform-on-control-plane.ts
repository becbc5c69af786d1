import assert from "node:assert/strict";
import type { ServerConfig } from "../app/start-server.js";
import { putSecret } from "./cluster-status.js";
import { documentedYamlBlocks, manifests } from "./documented-rights.js";
import { accessKey, postObject, writeKubeconfig } from "./gateway-fixture.js";
import { KubectlError, runKubectl } from "./kube/kubectl.js";
import { KubeControlPlane, type KubeUser, type PolicyRule } from "./kube-control-plane.js";
import { startTestServer, type TestServer } from "./test-server.js";

/**
 * The platform connected to a real control plane (kube-control-plane.ts), as the tests of what
 * it does inside clusters set it up: a ServiceAccount holding the rights a doc tells a cluster
 * admin to grant, its kubeconfig as a Cluster's secret, and kubectl as a user through the gateway.
 */

/** The ClusterRole a doc's "What the platform needs on the cluster" section shows, read from the page as written. */
export function documentedPlatformRole(doc: string): PolicyRule[] {
  const [yaml] = documentedYamlBlocks(doc, "## What the platform needs on the cluster");
  const [role] = manifests(yaml ?? "");
  assert.equal(role?.kind, "ClusterRole", `${doc} shows the platform's ClusterRole`);
  return role.rules as PolicyRule[];
}

/** The health check's right (docs/gateway.md), so a connected cluster shows online. */
export const HEALTH_CHECK_RIGHTS: PolicyRule[] = [{ apiGroups: [""], resources: ["services"], verbs: ["list"] }];

/**
 * Connects the control plane as Cluster `cluster` (spec `spec`, its config secret added) through
 * ServiceAccount platform/`account`, which holds each of `roles` cluster-wide and the health
 * check's right in namespace platform (which must exist), once kube-apiserver's authorizer grants
 * them (kube.grant waits for it), so the platform's first request is judged by them. Returns the
 * ServiceAccount.
 */
export async function connectAsServiceAccount(
  server: TestServer,
  kube: KubeControlPlane,
  options: { cluster: string; account: string; roles: PolicyRule[][]; spec?: Record<string, unknown> },
): Promise<KubeUser> {
  const account = await kube.serviceAccount("platform", options.account);
  for (const rules of options.roles) await kube.grant(account, { rules });
  await kube.grant(account, { rules: HEALTH_CHECK_RIGHTS }, "platform");
  await putSecret(server, options.cluster, account.kubeconfig());
  await postObject(server, "clusters", {
    metadata: { name: options.cluster },
    spec: { config: { secretName: options.cluster }, ...options.spec },
  });
  return account;
}

/**
 * Applies the rights docs/gateway.md tells a cluster admin to grant the platform, as written
 * (with `deploy`, also those to deploy virtual clusters), to ServiceAccount platform/platform;
 * namespaces platform and team-a are made first, since the rights name them. Returns the account
 * once kube-apiserver's authorizer grants them (kube.apply waits for each binding it applies), so
 * the platform's first request, a deploy's included, is judged by them.
 */
export async function applyDocumentedPlatformRights(kube: KubeControlPlane, deploy: boolean): Promise<KubeUser> {
  for (const ns of ["platform", "team-a"]) await kube.kubectl("create", "namespace", ns);
  const platform = await kube.serviceAccount("platform", "platform");
  const [platformRights] = documentedYamlBlocks();
  assert.ok(platformRights, "docs/gateway.md shows the platform's rights");
  await kube.apply(platformRights);
  if (deploy) {
    const [deployRights] = documentedYamlBlocks(
      "docs/gateway.md",
      "### What the platform needs to deploy virtual clusters",
    );
    assert.ok(deployRights, "docs/gateway.md shows the rights to deploy virtual clusters");
    await kube.apply(deployRights);
  }
  return platform;
}

/**
 * How often the platform's controllers resync (`clusterCheckIntervalMs`) in tests against a real
 * control plane. Each pass lists the objects of every space and instance (writing only what
 * differs) and checks each cluster, which costs the real API server CPU. A test of drift repair
 * waits one interval for it.
 */
export const REAL_CLUSTER_RESYNC_MS = 2_000;

/** The platform deploying virtual clusters on a real control plane (startPlatformOnControlPlane). */
export interface PlatformOnControlPlane {
  kube: KubeControlPlane;
  server: TestServer;
  /** The platform's ServiceAccount on the control plane. */
  platform: KubeUser;
}

/**
 * A test server connected to a new real control plane as Cluster `cluster` (its config in
 * SharedSecret platform/`cluster`, `clusterSpec` added to its spec), through the platform's
 * ServiceAccount holding exactly the documented rights, those to deploy virtual clusters
 * included. With `kubelet`, the kubelet stand-in runs, so pods the platform deploys become ready.
 * The caller stops both.
 */
export async function startPlatformOnControlPlane(options: {
  cluster: string;
  clusterSpec?: Record<string, unknown>;
  server?: Partial<ServerConfig>;
  kubelet: boolean;
  /** Keep kube-apiserver's audit log (KubeControlPlane's `audit`). */
  audit?: boolean;
}): Promise<PlatformOnControlPlane> {
  const [kube, server] = await Promise.all([
    KubeControlPlane.start({ audit: options.audit === true }),
    startTestServer({ allowLocalEndpoints: true, clusterCheckIntervalMs: REAL_CLUSTER_RESYNC_MS, ...options.server }),
  ]);
  try {
    const platform = await applyDocumentedPlatformRights(kube, true);
    if (options.kubelet) await kube.startKubelet();
    await putSecret(server, options.cluster, platform.kubeconfig());
    await postObject(server, "clusters", {
      metadata: { name: options.cluster },
      spec: { config: { secretName: options.cluster }, ...options.clusterSpec },
    });
    return { kube, server, platform };
  } catch (err) {
    // The caller never gets them to stop.
    await Promise.allSettled([server.stop(), kube.stop()]);
    throw err;
  }
}

/** kubectl as platform user `user` (with an access key of its own) through the gateway to `cluster`. */
export async function kubectlThroughGateway(
  server: TestServer,
  cluster: string,
  user: string,
): Promise<(...args: string[]) => Promise<string>> {
  const config = writeKubeconfig(
    server.dataDir,
    `${server.url}/kubernetes/cluster/${cluster}`,
    server.caPem ?? "",
    await accessKey(server, user),
  );
  return (...args) => runKubectl(config, args);
}

/**
 * Retries `attempt` every 200 ms until it stops throwing, at most `attempts` times: bounded, as a
 * guard against hanging, not a timing assertion.
 */
export async function eventually<T>(what: string, attempt: () => Promise<T>, attempts = 400): Promise<T> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await attempt();
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  assert.fail(`${what} never happened; last: ${String(last)}`);
}

/**
 * Waits until the cluster's authorizer answers `kubectl auth can-i ...question` with `allowed`, for
 * whom `kubectl` runs as. kube-apiserver's RBAC authorizer sees a binding's change through its own
 * watch, a moment after the write: a request sent as soon as the binding is seen changed may still
 * be judged by the rights before. Bounded, as a guard against hanging.
 */
export async function waitForAuthorizer(
  kubectl: (...args: string[]) => Promise<string>,
  allowed: boolean,
  ...question: string[]
): Promise<void> {
  const want = allowed ? "yes" : "no";
  await eventually(`kubectl auth can-i ${question.join(" ")} answering ${want}`, async () => {
    // A "no" is exit code 1, its answer on stdout as a "yes" is (a reason may follow it).
    const answer = await kubectl("auth", "can-i", ...question).catch((err: unknown) => {
      if (err instanceof KubectlError) return err.stdout;
      throw err;
    });
    assert.equal(answer.trim().split(/\s/)[0], want, answer);
  });
}

/** The stderr of a kubectl run that must fail. */
export async function refused(run: Promise<string>): Promise<string> {
  try {
    const out = await run;
    assert.fail(`kubectl succeeded: ${out}`);
  } catch (err) {
    if (!(err instanceof KubectlError)) throw err;
    return err.stderr;
  }
}
