/**
 * Where the tests' kube-apiserver and kube-controller-manager are: built by tools/kube/build.sh
 * into `${PLATFORM_KUBE_CACHE:-$HOME/.cache/platform/kube}/v<version>/`, the version being the
 * k8s.io/kubernetes requirement in tools/kube/go.mod. The harness never builds them itself (a
 * first build takes a long time and both CPU cores); a missing binary is an error that says how
 * to build it, never a skipped test.
 */
import { accessSync, constants, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** tools/kube in the repository (this file runs as dist/testing/kube/binaries.js). */
export const KUBE_TOOLS_DIR = fileURLToPath(new URL("../../../tools/kube/", import.meta.url));
export const BUILD_SCRIPT = join(KUBE_TOOLS_DIR, "build.sh");

export interface KubeBinaries {
  /** The Kubernetes release, e.g. `v1.37.2`. */
  readonly version: string;
  readonly apiServer: string;
  readonly controllerManager: string;
}

/** The Kubernetes version tools/kube/go.mod requires. */
export function kubeVersion(): string {
  const goMod = readFileSync(join(KUBE_TOOLS_DIR, "go.mod"), "utf8");
  const match = /^require k8s\.io\/kubernetes (v\d+\.\d+\.\d+)$/m.exec(goMod);
  if (!match) throw new Error(`no "require k8s.io/kubernetes vX.Y.Z" line in ${KUBE_TOOLS_DIR}go.mod`);
  return match[1]!;
}

/** The cache directory build.sh fills for `version`. */
export function kubeBinaryDir(version: string = kubeVersion()): string {
  const root = process.env.PLATFORM_KUBE_CACHE || join(homedir(), ".cache", "platform", "kube");
  return join(root, version);
}

/** The built binaries, or an error saying how to build them. */
export function findKubeBinaries(dir?: string): KubeBinaries {
  const version = kubeVersion();
  const binDir = dir ?? kubeBinaryDir(version);
  const binaries = {
    version,
    apiServer: join(binDir, "kube-apiserver"),
    controllerManager: join(binDir, "kube-controller-manager"),
  };
  for (const path of [binaries.apiServer, binaries.controllerManager]) {
    try {
      accessSync(path, constants.X_OK);
    } catch {
      throw new Error(
        `${path} is missing: the tests that run a real Kubernetes control plane need kube-apiserver and ` +
          `kube-controller-manager ${version}. Build them once with ${BUILD_SCRIPT} (needs Go; the first ` +
          "build takes a long time, later runs reuse the cache; PLATFORM_KUBE_CACHE moves the cache).",
      );
    }
  }
  return binaries;
}
