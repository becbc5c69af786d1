import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { KubeControlPlane } from "./kube-control-plane.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";

/**
 * `platform start` run as if in a pod of a test control plane: what a pod's container sees is
 * the ServiceAccount's files at /var/run/secrets/kubernetes.io/serviceaccount (token, ca.crt,
 * namespace) and KUBERNETES_SERVICE_HOST/PORT naming the API server. The files are a directory
 * of the test's, bind-mounted at that path in a mount namespace of the server's own (unshare
 * -m, which needs root), so neither this machine nor any other test sees them. /run gets an
 * empty tmpfs there first: /run/secrets does not exist on the machine, and a mount point must.
 */

const IN_POD_FILES = "/run/secrets/kubernetes.io/serviceaccount";

const MOUNT_THEN_EXEC = `set -e
mount -t tmpfs platform-test-run /run
mkdir -p ${IN_POD_FILES}
mount --bind "$PLATFORM_TEST_SA_DIR" ${IN_POD_FILES}
exec "$@"`;

export interface InPodServer extends ServerProcess {
  /** The directory mounted as the ServiceAccount's files: write `token` to rotate it, as the kubelet does. */
  readonly serviceAccountDir: string;
}

/** Starts the server with `token` as its pod's ServiceAccount token, against `kube`. */
export async function startServerInPod(
  kube: KubeControlPlane,
  dataDir: string,
  token: string,
  namespace: string,
  extraArgs: string[] = [],
): Promise<InPodServer> {
  const serviceAccountDir = join(dataDir, "serviceaccount");
  await mkdir(serviceAccountDir, { recursive: true });
  await writeFile(join(serviceAccountDir, "token"), token, { mode: 0o600 });
  await writeFile(join(serviceAccountDir, "ca.crt"), kube.caPem);
  await writeFile(join(serviceAccountDir, "namespace"), namespace);
  const api = new URL(kube.url);
  const env = {
    ...process.env,
    KUBERNETES_SERVICE_HOST: api.hostname,
    KUBERNETES_SERVICE_PORT: api.port,
    PLATFORM_TEST_SA_DIR: serviceAccountDir,
  };
  const launcher = ["unshare", "--mount", "--propagation", "private", "sh", "-c", MOUNT_THEN_EXEC, "sh"];
  const server = await startServerProcess(join(dataDir, "server"), undefined, extraArgs, env, launcher);
  return Object.assign(server, { serviceAccountDir });
}
