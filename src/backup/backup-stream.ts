/**
 * The content of a backup: newline-delimited JSON, one header line, one line per stored key
 * (its value as stored: secret data stays encrypted), and an end line with the count and the
 * SHA-256 of every line before it. The same lines are streamed by the server's backup endpoint
 * and written (gzipped) by `platform backup`.
 */
import { createHash } from "node:crypto";
import { REGISTRY_PREFIX } from "../registry/keys.js";
import type { KeyValue, Storage } from "../storage/interface.js";
import { CA_KEY_PREFIX } from "../virtualclusters/ca-store.js";

export const BACKUP_FORMAT = "platform-backup";
export const BACKUP_VERSION = 1;
/** What a backup holds: every API object and the platform's internal keys (virtual cluster CAs). */
export const BACKUP_PREFIXES = [REGISTRY_PREFIX, CA_KEY_PREFIX];
/** Large pages: a store's paged list also counts what remains after each page. */
const PAGE = 10_000;

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: number;
  createdAt: string;
  /** The store revision every object was read at. */
  revision: number;
  /** Where it was taken from (a URL without credentials, or "api"). */
  source: string;
}

export interface BackupRecord {
  key: string;
  /** The stored value as UTF-8 text, or… */
  value?: string;
  /** …base64 when it is not valid UTF-8. */
  valueBase64?: string;
}

export interface BackupEnd {
  end: true;
  objects: number;
  /** Names of the encryption keys that encrypted the secret data in it (`enc:v1:<name>:…`), found while writing. */
  encryptionKeyIds: string[];
  sha256: string;
}

const ENCRYPTED = /"enc:v1:([^:"]+):/g;

/** Every key under the backup prefixes at one revision, page by page. */
export async function* keysAt(storage: Storage, revision: number): AsyncGenerator<KeyValue> {
  for (const prefix of BACKUP_PREFIXES) {
    let after: string | undefined;
    for (;;) {
      const page = await storage.list(prefix, {
        revision,
        limit: PAGE,
        countRemaining: false,
        ...(after !== undefined ? { after } : {}),
      });
      yield* page.items;
      if (!page.more || page.items.length === 0) break;
      after = page.items[page.items.length - 1]!.key;
    }
  }
}

function recordOf(kv: KeyValue): BackupRecord {
  const text = kv.value.toString("utf8");
  return Buffer.byteLength(text) === kv.value.length && Buffer.from(text, "utf8").equals(kv.value)
    ? { key: kv.key, value: text }
    : { key: kv.key, valueBase64: kv.value.toString("base64") };
}

export function recordValue(record: BackupRecord): Buffer {
  return record.value !== undefined
    ? Buffer.from(record.value, "utf8")
    : Buffer.from(record.valueBase64 ?? "", "base64");
}

/**
 * The backup's lines, read in one pass at the store's current revision; the encryption keys the
 * secret data needs are found on the way and named in the end line.
 */
export async function* backupLines(storage: Storage, source: string): AsyncGenerator<string> {
  const revision = await storage.currentRevision();
  const keyIds = new Set<string>();
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    createdAt: new Date().toISOString(),
    revision,
    source,
  };
  const hash = createHash("sha256");
  const line = (obj: unknown) => {
    const text = `${JSON.stringify(obj)}\n`;
    hash.update(text);
    return text;
  };
  yield line(header);
  let objects = 0;
  for await (const kv of keysAt(storage, revision)) {
    objects++;
    const record = recordOf(kv);
    if (record.value?.includes('"enc:v1:')) for (const m of record.value.matchAll(ENCRYPTED)) keyIds.add(m[1]!);
    yield line(record);
  }
  const end: BackupEnd = { end: true, objects, encryptionKeyIds: [...keyIds].sort(), sha256: hash.digest("hex") };
  yield `${JSON.stringify(end)}\n`;
}
