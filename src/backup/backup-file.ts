/**
 * Backup files: the lines of backup-stream.ts, gzipped. Written to `FILE.partial` and renamed
 * once complete, so a FILE that exists is whole. Read in two passes: the first checks the whole
 * file (format, end line, count, checksum) and writes nothing; only then are records handed out.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, renameSync, rmSync, statSync } from "node:fs";
import { createInterface } from "node:readline";
import { pipeline as pipelineCallback, Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  type BackupEnd,
  type BackupHeader,
  type BackupRecord,
} from "./backup-stream.js";

export class BackupFileError extends Error {}

/**
 * Writes `lines` gzipped to `path`, checking as they pass that they are a whole backup (header
 * first, the end line's count and checksum right). Returns the header and the end line.
 */
export async function writeBackupFile(
  lines: AsyncIterable<string>,
  path: string,
  progress: (objects: number) => void = () => {},
): Promise<{ header: BackupHeader; end: BackupEnd }> {
  const partial = `${path}.partial`;
  // Refused before the work: the rename at the end would fail only after the whole backup was taken.
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory())
    throw new BackupFileError(`cannot write the backup file ${path}: it is a directory`);
  const check = new LineChecker();
  async function* checked() {
    for await (const line of lines) {
      const text = line.endsWith("\n") ? line.slice(0, -1) : line;
      check.line(text);
      if (check.objects % 1000 === 0 && check.objects > 0) progress(check.objects);
      yield `${text}\n`;
    }
  }
  try {
    await pipeline(Readable.from(checked()), createGzip(), createWriteStream(partial, { mode: 0o600 }));
    const result = check.finish();
    renameSync(partial, path);
    progress(result.end.objects);
    return result;
  } catch (err) {
    rmSync(partial, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    if (code) throw new BackupFileError(`cannot write the backup file ${path}: ${fileProblem(code, err as Error)}`);
    throw err;
  }
}

/** What a file system error means to the user, without the temporary file's name. */
function fileProblem(code: string, err: Error): string {
  if (code === "ENOENT") return "its directory does not exist";
  if (code === "EISDIR") return "it is a directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "ENOSPC") return "no space left on the device";
  return err.message;
}

/** Reads and checks the whole file; nothing else is trusted until this passed. */
export async function verifyBackupFile(path: string): Promise<{ header: BackupHeader; end: BackupEnd }> {
  const check = new LineChecker();
  for await (const line of rawLines(path)) check.line(line);
  return check.finish();
}

/** The records of a file verifyBackupFile accepted. */
export async function* backupRecords(path: string): AsyncGenerator<BackupRecord> {
  let first = true;
  for await (const line of rawLines(path)) {
    if (first) {
      first = false;
      continue;
    }
    const parsed = JSON.parse(line) as BackupRecord | BackupEnd;
    if ("end" in parsed) return;
    yield parsed;
  }
}

async function* rawLines(path: string): AsyncGenerator<string> {
  // pipeline, not pipe: a read error (no such file, a directory) must reach the loop below, not
  // go unhandled on the file stream and take the process down.
  const input = pipelineCallback(createReadStream(path), createGunzip(), () => {});
  try {
    for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) yield line;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new BackupFileError(`backup file ${path} does not exist`);
    if (code === "EISDIR" || code === "EACCES" || code === "EPERM")
      throw new BackupFileError(`cannot read the backup file ${path}: ${fileProblem(code, err as Error)}`);
    throw new BackupFileError(
      `backup file ${path} is corrupted or truncated (${(err as Error).message}); nothing was restored`,
    );
  }
}

/** Checks lines in order: a header, records, then an end line whose count and checksum match. */
class LineChecker {
  private readonly hash = createHash("sha256");
  private header?: BackupHeader;
  private end?: BackupEnd;
  objects = 0;

  line(text: string): void {
    if (this.end) throw new BackupFileError("the backup has data after its end line: it is corrupted");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new BackupFileError(
        this.header
          ? `the backup is corrupted (a line after object ${this.objects} is not JSON)`
          : "not a platform backup file",
      );
    }
    if (!this.header) {
      const h = parsed as Partial<BackupHeader>;
      if (h?.format !== BACKUP_FORMAT) throw new BackupFileError("not a platform backup file");
      if (h.version !== BACKUP_VERSION)
        throw new BackupFileError(
          `backup format version ${h.version} is not supported (this platform reads ${BACKUP_VERSION})`,
        );
      this.header = h as BackupHeader;
      this.hash.update(`${text}\n`);
      return;
    }
    const rec = parsed as Partial<BackupRecord & BackupEnd>;
    if (rec.end === true) {
      this.end = rec as BackupEnd;
      return;
    }
    if (typeof rec.key !== "string" || (typeof rec.value !== "string" && typeof rec.valueBase64 !== "string"))
      throw new BackupFileError(`the backup is corrupted (object ${this.objects + 1} has no key or value)`);
    this.objects++;
    this.hash.update(`${text}\n`);
  }

  finish(): { header: BackupHeader; end: BackupEnd } {
    if (!this.header) throw new BackupFileError("not a platform backup file (it is empty)");
    if (!this.end)
      throw new BackupFileError(
        `the backup is truncated: no end line after ${this.objects} objects; nothing was restored`,
      );
    if (this.end.objects !== this.objects)
      throw new BackupFileError(
        `the backup is corrupted: it holds ${this.objects} objects, its end line says ${this.end.objects}`,
      );
    if (this.end.sha256 !== this.hash.digest("hex"))
      throw new BackupFileError("the backup is corrupted: its checksum does not match its content");
    return { header: this.header, end: this.end };
  }
}
