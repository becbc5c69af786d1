import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Every kubectl minor the kubectl tests run, oldest first: 1.20 (Debian's kubernetes-client,
 * unpacked into the repository's `.tmp/kubectl-1.20` by scripts/fetch-kubectl-1.20.sh, which
 * .ci/run calls) and those of the Google Cloud SDK's kubectl package, which installs one binary
 * per minor beside its `kubectl`. A missing one fails the test with what to run, rather than
 * shrinking the set of versions tested.
 */
export interface KubectlBinary {
  /** The minor version, e.g. 20 for 1.20. */
  minor: number;
  path: string;
}

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLOUD_SDK_BIN = "/usr/lib/google-cloud-sdk/bin";

/** The minors the tests require: 1.20, then every one the Google Cloud SDK ships here. */
export const REQUIRED_KUBECTL_MINORS = [20, 27, 28, 29, 30, 31, 32, 33] as const;

export function kubectlPath(minor: number): string {
  if (minor === 20) return join(REPO, ".tmp", "kubectl-1.20", "usr", "bin", "kubectl");
  return join(CLOUD_SDK_BIN, `kubectl.1.${minor}`);
}

/** The binaries, or an error naming each one missing and how to get it. */
export function kubectlBinaries(): KubectlBinary[] {
  const binaries = REQUIRED_KUBECTL_MINORS.map((minor) => ({ minor, path: kubectlPath(minor) }));
  const missing = binaries.filter((b) => !existsSync(b.path));
  if (missing.length > 0) {
    const how = missing.map((b) =>
      b.minor === 20
        ? `kubectl 1.20 (${b.path}): run scripts/fetch-kubectl-1.20.sh`
        : `kubectl 1.${b.minor} (${b.path}): install Google's "kubectl" package (google-cloud-sdk)`,
    );
    throw new Error(`kubectl binaries missing:\n  ${how.join("\n  ")}`);
  }
  return binaries;
}
