/**
 * File helpers shared by the crypto modules. Everything they write is secret or
 * must match its secret counterpart, so writes are atomic (temp file + rename:
 * a crash never leaves a half-written key that a restart would then trust) and
 * private files get mode 0600 from the moment they exist.
 */

import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Mode of files holding private keys or secrets: owner read/write only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Mode of public files (certificates): readable by other local users, e.g. a CLI run as someone else. */
export const PUBLIC_FILE_MODE = 0o644;

/** Creates the data directory (owner only, as it holds keys) if it does not exist yet. */
export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

export function writeFileAtomic(path: string, data: string | Buffer, mode: number): void {
  ensureDir(dirname(path));
  const tmp = join(dirname(path), `.${randomBytes(6).toString("hex")}.tmp`);
  try {
    // `mode` only applies when the file is created, and the temp name is fresh;
    // chmod anyway because the umask may have removed bits we asked for (never added).
    writeFileSync(tmp, data, { mode, flag: "wx" });
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** The file's text, or undefined when it does not exist (other read errors propagate). */
export function readTextIfExists(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  return readFileSync(path, "utf8");
}
