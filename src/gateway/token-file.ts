import { readFileSync, statSync } from "node:fs";

/**
 * A bearer token read from a file that is replaced while the process runs: the kubelet rewrites
 * a pod's ServiceAccount token (a projected volume) well before it expires, and the old token is
 * refused once it has. `changed()` is one stat, cheap enough to ask before every request.
 */
export class TokenFile {
  readonly token: string;
  private readonly stamp: string;

  constructor(private readonly path: string) {
    // Stamped before reading: a write in between makes the next changed() true, never a stale token kept.
    this.stamp = stampOf(path);
    this.token = readFileSync(path, "utf8").trim();
  }

  /** Whether the file is no longer the one read (written again, or replaced as the kubelet does, by a rename). */
  changed(): boolean {
    return stampOf(this.path) !== this.stamp;
  }
}

function stampOf(path: string): string {
  const s = statSync(path, { bigint: true, throwIfNoEntry: false });
  return s ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}` : "missing";
}
