/**
 * Test helper: a real Kubernetes control plane — etcd, kube-apiserver and kube-controller-manager
 * built from the k8s.io/kubernetes Go module by tools/kube/build.sh — for tests of connected
 * clusters. Everything listens on 127.0.0.1 with free ports and keeps its files in a temporary
 * directory; certificates come from the product's own helpers (src/crypto).
 *
 *   const kube = await KubeControlPlane.start();
 *   await kube.kubectl("create", "namespace", "platform");
 *   const sa = await kube.serviceAccount("platform", "reader");
 *   await kube.grant(sa, { rules: [{ apiGroups: [""], resources: ["services"], verbs: ["list"] }] }, "platform");
 *   sa.kubeconfig(); // what a Cluster's config secret holds
 *   await kube.stop();
 *
 * The API server authorizes with RBAC; the controller manager runs the controllers a cluster
 * without nodes needs (CONTROLLERS) and those that make pods for workloads. No scheduler and no
 * kubelet run, so pods never start: exec, logs and port-forward are out of reach here.
 * startKubelet() starts a stand-in for both (kube/kubelet-stand-in.ts) that binds pods and
 * reports them running and ready, so StatefulSets and Deployments become ready through their own
 * controllers. Missing binaries are an error that says how to build them.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { CertificateAndKey } from "../crypto/certificates.js";
import { EtcdCluster } from "./etcd-cluster.js";
import { AdminClient } from "./kube/admin-client.js";
import { auditLogFlags, type KubeAuditEvent, readAuditLog } from "./kube/audit-log.js";
import { bindingsIn, waitUntilBindingGrants } from "./kube/authorizer-grants.js";
import { findKubeBinaries, type KubeBinaries } from "./kube/binaries.js";
import { kubeconfigYaml } from "./kube/kubeconfig.js";
import { runKubectl } from "./kube/kubectl.js";
import { KubeletStandIn } from "./kube/kubelet-stand-in.js";
import { LoggedProcess } from "./kube/logged-process.js";
import {
  type ControlPlaneFiles,
  clientCertificate,
  SERVICE_CLUSTER_IP_RANGE,
  writeControlPlaneFiles,
} from "./kube/pki.js";
import { type Grant, type KubeUser, KubeUsers, type ServiceAccountOptions } from "./kube/users.js";
import { freePort } from "./server-process.js";

export type { KubeAuditEvent } from "./kube/audit-log.js";
export type { KubectlError } from "./kube/kubectl.js";
export type { Grant, KubeconfigOverrides, KubeUser, PolicyRule, RbacSubject } from "./kube/users.js";

/**
 * The controllers kube-controller-manager runs: namespace deletion, the garbage collector,
 * ServiceAccounts and their tokens, the `kube-root-ca.crt` ConfigMap in every namespace, the
 * aggregation that fills the `admin`/`edit`/`view` ClusterRoles (empty without it), and the
 * workload controllers that create pods and count the ready ones (StatefulSet, Deployment and
 * its ReplicaSets).
 */
const CONTROLLERS = [
  "namespace-controller",
  "garbage-collector-controller",
  "serviceaccount-controller",
  "serviceaccount-token-controller",
  "root-ca-certificate-publisher-controller",
  "clusterrole-aggregation-controller",
  "statefulset-controller",
  "deployment-controller",
  "replicaset-controller",
];

/** Polls while waiting for the control plane: a guard against hanging forever, not a timing assertion. */
const READY_POLLS = 1_200;
const POLL_MS = 100;

export interface KubeControlPlaneOptions {
  /**
   * Keep the files (certificates, kubeconfigs, logs) in this directory, created if needed and
   * left in place by stop(), instead of a temporary one that stop() removes. etcd's data is
   * always temporary: every start is a new, empty cluster.
   */
  readonly dir?: string;
  /** Where the binaries are (default: the cache tools/kube/build.sh fills). */
  readonly binDir?: string;
  /** Keep kube-apiserver's audit log of every write and list (kube/audit-log.ts), read with auditEvents(). */
  readonly audit?: boolean;
}

export class KubeControlPlane {
  private apiServer: LoggedProcess | undefined;
  private controllerManager: LoggedProcess | undefined;
  private etcd: EtcdCluster | undefined;
  private admin: AdminClient | undefined;
  private users: KubeUsers | undefined;
  private kubelet: KubeletStandIn | undefined;
  private auditFlags: string[] = [];

  private constructor(
    /** The directory with the certificates, kubeconfigs and logs (`logs/*.log`). */
    readonly dir: string,
    private readonly ownsDir: boolean,
    private readonly binaries: KubeBinaries,
    private readonly files: ControlPlaneFiles,
    private readonly port: number,
    private readonly audit: boolean,
  ) {}

  /** Starts etcd, kube-apiserver and kube-controller-manager, and resolves once the cluster is usable. */
  static async start(options: KubeControlPlaneOptions = {}): Promise<KubeControlPlane> {
    const binaries = findKubeBinaries(options.binDir);
    const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "platform-kube-")));
    await mkdir(join(dir, "logs"), { recursive: true });
    const files = await writeControlPlaneFiles(dir);
    const plane = new KubeControlPlane(
      dir,
      options.dir === undefined,
      binaries,
      files,
      await freePort(),
      options.audit === true,
    );
    try {
      await plane.boot();
    } catch (err) {
      await plane.stop();
      throw err;
    }
    return plane;
  }

  /** The API server's URL, `https://127.0.0.1:PORT`. */
  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** The CA (PEM) that signed the API server's certificate and every client certificate. */
  get caPem(): string {
    return this.files.ca.certPem;
  }

  /**
   * The CA with its key: what a test gives the platform as a virtual cluster's CA (its
   * `<name>-certs` Secret) when this API server stands in for a virtual cluster's.
   */
  get ca(): CertificateAndKey {
    return this.files.ca;
  }

  /** The Kubernetes release running, e.g. `v1.37.2` (what `/version` reports as gitVersion). */
  get version(): string {
    return this.binaries.version;
  }

  /** Path of a kubeconfig of the cluster's administrator (a client certificate in group system:masters). */
  get adminKubeconfig(): string {
    return join(this.dir, "admin.kubeconfig");
  }

  /** Runs kubectl as the administrator; resolves with stdout, rejects with a KubectlError. */
  kubectl(...args: string[]): Promise<string> {
    return runKubectl(this.adminKubeconfig, args);
  }

  /**
   * `kubectl apply -f -` of a YAML or JSON manifest, as the administrator. With RoleBindings or
   * ClusterRoleBindings in it, resolves once the API server's authorizer grants what each binds
   * (kube/authorizer-grants.ts), so a request made next is judged by them.
   */
  async apply(manifest: string): Promise<string> {
    const out = await runKubectl(this.adminKubeconfig, ["apply", "-f", "-"], manifest);
    for (const binding of bindingsIn(manifest)) await waitUntilBindingGrants(this.requireAdmin(), binding);
    return out;
  }

  /** A person with a client certificate (CN = name, O = groups) and no rights yet. */
  user(name: string, groups: string[] = []): Promise<KubeUser> {
    return this.requireUsers().user(name, groups);
  }

  /** ServiceAccount `namespace/name` (the namespace must exist) with a TokenRequest token, and no rights yet. */
  serviceAccount(namespace: string, name: string, options?: ServiceAccountOptions): Promise<KubeUser> {
    return this.requireUsers().serviceAccount(namespace, name, options);
  }

  /**
   * Binds `user` new rules or an existing ClusterRole, in `namespace` or (without one)
   * cluster-wide; resolves once the API server's authorizer grants them.
   */
  grant(user: KubeUser, grant: Grant, namespace?: string): Promise<void> {
    return this.requireUsers().grant(user, grant, namespace);
  }

  /**
   * Starts the stand-in for the scheduler and kubelet of one node (kube/kubelet-stand-in.ts):
   * from then on every pod is bound to that node and reported running and ready, and a deleted
   * pod goes at once. Once per control plane; stop() stops it.
   */
  async startKubelet(): Promise<KubeletStandIn> {
    if (this.kubelet) throw new Error("the kubelet stand-in is already running");
    this.kubelet = await KubeletStandIn.start(this.adminKubeconfig);
    return this.kubelet;
  }

  /**
   * Every write and list the API server answered (and the platform's reads of a Namespace),
   * oldest first, who made it and its answer's code, across restarts (started with `audit: true`;
   * else an error).
   */
  async auditEvents(): Promise<KubeAuditEvent[]> {
    if (!this.audit) throw new Error("the control plane was started without audit: true");
    return await readAuditLog(this.auditLogPath);
  }

  private get auditLogPath(): string {
    return join(this.dir, "logs", "kube-apiserver-audit.log");
  }

  /** Kills kube-apiserver alone: the cluster becomes unreachable at its URL (etcd and the controllers stay). */
  async stopApiServer(): Promise<void> {
    await this.apiServer?.kill();
  }

  /**
   * Starts kube-apiserver again on the same port, with the same certificates and data, and waits
   * until it is ready; then restarts kube-controller-manager, as a control plane's restart does.
   * Left running, the controller manager's watches (client-go reflectors) retry with a backoff of
   * up to half a minute after losing the API server, so a workload changed right after the restart
   * would wait that long for its pods: kube's own delay, not the platform's under test.
   */
  async startApiServer(): Promise<void> {
    if (this.apiServer?.isRunning) return;
    await this.startApiServerProcess();
    await this.controllerManager?.kill();
    await this.startControllerManager();
  }

  private async startApiServerProcess(): Promise<void> {
    this.apiServer = new LoggedProcess(
      "kube-apiserver",
      this.binaries.apiServer,
      this.apiServerArgs(),
      join(this.dir, "logs", "kube-apiserver.log"),
    );
    await this.waitFor("kube-apiserver to be ready (/readyz)", [this.apiServer], async () => {
      const res = await this.requireAdmin().request("GET", "/readyz");
      return res.status === 200;
    });
  }

  /** Kills every process it started and removes the temporary directory (not a `dir` given to start); once is enough, twice is harmless. */
  async stop(): Promise<void> {
    await this.kubelet?.stop();
    this.kubelet = undefined;
    await this.controllerManager?.kill();
    await this.apiServer?.kill();
    const { etcd, admin } = this;
    this.etcd = undefined;
    this.admin = undefined;
    this.users = undefined;
    await etcd?.stop();
    await admin?.close();
    if (this.ownsDir) await rm(this.dir, { recursive: true, force: true });
  }

  private async boot(): Promise<void> {
    const adminCert = await clientCertificate(this.files.ca, "platform-test-admin", ["system:masters"]);
    await this.writeKubeconfig(this.adminKubeconfig, adminCert);
    this.admin = new AdminClient(this.url, this.caPem, adminCert);
    this.users = new KubeUsers(this.admin, { url: this.url, caPem: this.caPem, ca: this.files.ca }, this.dir);
    this.etcd = await EtcdCluster.start(1);
    if (this.audit) this.auditFlags = await auditLogFlags(this.dir, this.auditLogPath);
    await this.startApiServerProcess();
    await this.startControllerManager();
  }

  private async startControllerManager(): Promise<void> {
    // With --use-service-account-credentials=false every controller acts as this one user. Its
    // own ClusterRole (system:kube-controller-manager) only reads most kinds, while the namespace
    // controller and the garbage collector delete objects of any kind: hence system:masters too.
    const cert = await clientCertificate(this.files.ca, "system:kube-controller-manager", ["system:masters"]);
    const kubeconfig = join(this.dir, "controller-manager.kubeconfig");
    await this.writeKubeconfig(kubeconfig, cert);
    this.controllerManager = new LoggedProcess(
      "kube-controller-manager",
      this.binaries.controllerManager,
      [
        `--kubeconfig=${kubeconfig}`,
        `--controllers=${CONTROLLERS.join(",")}`,
        "--use-service-account-credentials=false",
        `--root-ca-file=${this.files.caCertPath}`,
        `--service-account-private-key-file=${this.files.serviceAccountKeyPath}`,
        "--leader-elect=false",
        // No HTTPS endpoint of its own: nothing here reads its metrics or health, and a fixed
        // port would collide between control planes running side by side.
        "--secure-port=0",
      ],
      join(this.dir, "logs", "kube-controller-manager.log"),
    );
    const processes = [this.controllerManager, this.apiServer!];
    await this.waitFor("the default namespace and its default ServiceAccount", processes, async () => {
      const res = await this.requireAdmin().request("GET", "/api/v1/namespaces/default/serviceaccounts/default");
      return res.status === 200;
    });
  }

  private apiServerArgs(): string[] {
    const f = this.files;
    return [
      `--etcd-servers=${this.etcd!.endpoints.map((e) => `http://${e}`).join(",")}`,
      "--bind-address=127.0.0.1",
      // The address the `kubernetes` Service's endpoints would name. Nothing in a test reaches the
      // API server through that Service (no pods run), so no endpoints are kept: a loopback
      // address, the only one the tests listen on, is refused by the endpoint reconciler.
      "--advertise-address=127.0.0.1",
      "--endpoint-reconciler-type=none",
      `--secure-port=${this.port}`,
      `--tls-cert-file=${f.servingCertPath}`,
      `--tls-private-key-file=${f.servingKeyPath}`,
      `--client-ca-file=${f.caCertPath}`,
      "--authorization-mode=RBAC",
      `--service-account-key-file=${f.serviceAccountPublicKeyPath}`,
      `--service-account-signing-key-file=${f.serviceAccountKeyPath}`,
      "--service-account-issuer=https://kubernetes.default.svc",
      `--service-cluster-ip-range=${SERVICE_CLUSTER_IP_RANGE}`,
      "--profiling=false",
      ...this.auditFlags,
    ];
  }

  private async writeKubeconfig(path: string, cert: { certPem: string; keyPem: string }): Promise<void> {
    await writeFile(path, kubeconfigYaml({ server: this.url, caPem: this.caPem, credentials: cert }), {
      mode: 0o600,
    });
  }

  /** Polls `ready` until it holds; a process in `processes` that ends first fails the wait with its log. */
  private async waitFor(what: string, processes: LoggedProcess[], ready: () => Promise<boolean>): Promise<void> {
    for (let poll = 0; poll < READY_POLLS; poll++) {
      const ended = processes.find((p) => !p.isRunning);
      if (ended) throw new Error(`${ended.name} ${ended.endState} while waiting for ${what}:\n${ended.logTail()}`);
      try {
        if (await ready()) return;
      } catch {
        // not listening yet
      }
      await sleep(POLL_MS);
    }
    const logs = processes.map((p) => `--- ${p.name}:\n${p.logTail()}`).join("\n");
    throw new Error(`gave up waiting for ${what}:\n${logs}`);
  }

  private requireAdmin(): AdminClient {
    if (!this.admin) throw new Error("the control plane is not started");
    return this.admin;
  }

  private requireUsers(): KubeUsers {
    if (!this.users) throw new Error("the control plane is not started");
    return this.users;
  }
}
