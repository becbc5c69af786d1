/**
 * The TLS files (CA and serving certificate with their keys) a test server's fresh data dir
 * starts with, made once per test run rather than by every server: making them loads an X.509
 * library and signs two certificates, a large share of a short test file's CPU. The server loads
 * the files it finds in its data dir, as after a restart, and checks that the serving certificate
 * fits its names (else it issues another from the CA). A test of how the files are made starts
 * the server on a data dir of its own (`dataDir`), which is never seeded.
 *
 * The first server of the run makes them as always; startTestServer keeps them (remember) for
 * the servers after it, in this process and, when scripts/run-tests.js gives the run a directory
 * (RUN_DIR_VARIABLE), in the other test files' processes.
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The files loadOrCreateServerTls (src/crypto/certificates.ts) reads from a data dir, and their modes. */
const TLS_FILES = { "ca.crt": 0o644, "ca.key": 0o600, "server.crt": 0o644, "server.key": 0o600 } as const;
type TlsFile = keyof typeof TLS_FILES;

/** The environment variable naming the directory a run shares its TLS files in (scripts/run-tests.js sets it). */
export const RUN_DIR_VARIABLE = "PLATFORM_TEST_TLS_DIR";

/** The files this process's servers use, once made here or read from the run's directory. */
let kept: Map<TlsFile, Buffer> | undefined;

const names = Object.keys(TLS_FILES) as TlsFile[];

function read(dir: string): Map<TlsFile, Buffer> {
  return new Map(names.map((file) => [file, readFileSync(join(dir, file))]));
}

function write(files: Map<TlsFile, Buffer>, dir: string): void {
  for (const [file, bytes] of files) writeFileSync(join(dir, file), bytes, { mode: TLS_FILES[file] });
}

/** The run's shared directory of TLS files, once a process has put them there. */
function sharedDir(): string | undefined {
  const runDir = process.env[RUN_DIR_VARIABLE];
  return runDir !== undefined && existsSync(join(runDir, "tls")) ? join(runDir, "tls") : undefined;
}

/** Writes the run's TLS files into a fresh data dir; false when there are none yet. */
export function seedTls(dataDir: string): boolean {
  if (kept === undefined) {
    const shared = sharedDir();
    if (shared === undefined) return false;
    kept = read(shared);
  }
  write(kept, dataDir);
  return true;
}

/**
 * Keeps the TLS files a server made in `dataDir` for the servers after it: in this process, and
 * in the run's directory when there is one (whole, or not at all: a process reading it never
 * sees half of them).
 */
export function rememberTls(dataDir: string): void {
  kept = read(dataDir);
  const runDir = process.env[RUN_DIR_VARIABLE];
  if (runDir === undefined || !existsSync(runDir) || sharedDir() !== undefined) return;
  const staging = mkdtempSync(join(runDir, "staging-"));
  write(kept, staging);
  try {
    renameSync(staging, join(runDir, "tls"));
  } catch {
    // Another process got there first: its files serve as well.
    rmSync(staging, { recursive: true, force: true });
  }
}
