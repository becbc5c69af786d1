/**
 * What a registry has found out about the stored versions it serves, in one object with one
 * owner: the Registry makes it and hands it to each of its Stores (StoreDeps.versions), as
 * kube-apiserver's watch cache keeps what it derived from an object in one explicit caching
 * object beside it. Nothing about it lives in the storage's KeyValues or in module state, so two
 * registries in one process (two servers in a test, a registry over another storage) never see
 * each other's findings.
 *
 * Per version (a KeyValue: a version never changes, a write makes a new one):
 * - whether its stored bytes may be sent as they are (sendableAsStored), checked once: in the
 *   background after the watch cache is filled (stored-bytes-precheck.ts, in small slices), or on
 *   its first serve when that comes first (docs/performance.md, "Checking stored bytes");
 * - for a version a GET read, that GET's answer (its bytes with the resourceVersion spliced in),
 *   shared by every later GET of it: splicing per read allocated and copied the whole object each
 *   time. The price: an object read since its last write is in memory twice while that version is
 *   current.
 * Both in one WeakMap entry per version checked (the answer implies "sendable"): an entry goes
 * with its version, so it holds nothing alive. Within one registry a key belongs to one kind, so
 * the version alone says which kind checked it.
 *
 * And the decoded objects of the versions decoded most recently, shared by every watcher and
 * informer of the version (SharedDecodes).
 */
import type { KubeObject } from "../api/object.js";
import type { KeyValue } from "../storage/interface.js";
import type { ResourceType } from "./resource-type.js";
import { SharedDecodes, withResourceVersion } from "./shared-codec.js";
import { parseStoredObject } from "./stored-object.js";

/** A version's entry: its verdict (false: refused, true: sendable), or the GET's answer (sendable). */
type Finding = boolean | Buffer;

export class StoredVersions {
  private readonly findings = new WeakMap<KeyValue, Finding>();
  /** Decoded objects shared by every watcher and informer of a version (shared-codec.ts). */
  readonly decodes = new SharedDecodes();

  /** Whether this version's stored bytes may be sent as the object (checked on first use, then remembered). */
  sendableAsStored(rt: ResourceType, kv: KeyValue): boolean {
    const known = this.findings.get(kv);
    if (known !== undefined) return known !== false;
    const sendable = storedBytesAreTheObject(rt, kv);
    this.findings.set(kv, sendable);
    return sendable;
  }

  /**
   * What is known of this version without checking it: whether its stored bytes may be sent
   * (true/false), or undefined when nothing has checked it yet. For tests and measurements of when
   * the check runs (stored-bytes-precheck.ts).
   */
  verdict(kv: KeyValue): boolean | undefined {
    const known = this.findings.get(kv);
    return known === undefined ? undefined : known !== false;
  }

  /** The answer to a GET of this version: its bytes with the resourceVersion spliced in; undefined when the decoding path must answer. */
  getAnswer(rt: ResourceType, kv: KeyValue): Buffer | undefined {
    const known = this.findings.get(kv);
    if (Buffer.isBuffer(known)) return known;
    if (!this.sendableAsStored(rt, kv)) return undefined;
    const bytes = withResourceVersion(kv.value, kv.modRevision);
    if (bytes) this.findings.set(kv, bytes);
    return bytes;
  }

  /**
   * The API JSON of this version for a watch event: the GET's answer when one was made, else
   * spliced now (not kept: most versions are never read, and a watch event's bytes are kept by its
   * frame); undefined when the decoding path must answer.
   */
  eventBytes(rt: ResourceType, kv: KeyValue): Buffer | undefined {
    const known = this.findings.get(kv);
    if (Buffer.isBuffer(known)) return known;
    return this.sendableAsStored(rt, kv) ? withResourceVersion(kv.value, kv.modRevision) : undefined;
  }
}

/**
 * Whether the stored bytes are, byte for byte, what the decoding path would send of this
 * object, its resourceVersion aside: they decode (stored-object.ts, the same check the decoding
 * path makes, so the two cannot disagree on what is corrupt) and encode back to themselves. The
 * second part leaves to the decoding path what JSON allows but it would send differently: a
 * duplicate key (which metadata would get the resourceVersion?), a stored resourceVersion,
 * numbers past 2^53, whitespace or escapes the encoder does not write. Such values are never
 * written by this server; they are answered, correctly, at the decoding path's price.
 */
function storedBytesAreTheObject(rt: ResourceType, kv: KeyValue): boolean {
  const text = kv.value.toString("utf8");
  let obj: KubeObject;
  try {
    obj = parseStoredObject(rt, kv, text);
  } catch {
    return false;
  }
  return !("resourceVersion" in obj.metadata) && JSON.stringify(obj) === text;
}
