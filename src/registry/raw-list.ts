/**
 * The LIST fast path, the list counterpart of raw-read.ts: when a kind's strategy neither
 * transforms stored objects (fromStorage) nor what callers see (present), a list's JSON is its
 * envelope around each object's stored bytes with the resourceVersion spliced in. Revision
 * choice, pagination and filtering are store-list.ts's own, so they cannot drift from the
 * normal path; only the per-item JSON.parse/JSON.stringify is skipped (a selector or a per-caller
 * visibility filter still parses each object, to decide, but the bytes sent are the stored ones).
 * Each version's bytes are checked once (the store's StoredVersions, stored-versions.ts), the
 * verdict kept for that version: the watch cache's versions once, in the background after its fill
 * (stored-bytes-precheck.ts) or here when the list comes first; a list the storage answers (an
 * older revision) brings fresh KeyValues, checked here again.
 */
import type { KubeObject } from "../api/object.js";
import type { KeyValue } from "../storage/interface.js";
import { ListReadErrors } from "./corrupt-object.js";
import type { ObjectFilter } from "./filter.js";
import { collectionPrefix } from "./keys.js";
import type { ListOptions } from "./options.js";
import { type StoredBytesSource, servesStoredBytes } from "./raw-read.js";
import type { RequestContext } from "./request-context.js";
import { metadataBodyAt, resourceVersionMember } from "./shared-codec.js";
import { listObjects } from "./store-list.js";

/** What the raw list uses of a kind's Store (store.ts, which calls it), besides the stored-bytes reads' part. */
export interface RawListSource extends Omit<StoredBytesSource, "key"> {
  filter(ctx: RequestContext, labelSelector?: string, fieldSelector?: string): ObjectFilter;
  decodeForWatch(kv: KeyValue): KubeObject;
}

/** An item's bytes and where its resourceVersion member goes (-1: `bytes` is the whole item already). */
interface RawItem {
  bytes: Buffer;
  at: number;
  member: string;
}

const TAIL = Buffer.from("]}");

/** Lists larger than this go out in pieces of about this size: big enough that per-piece costs vanish, small enough to overlap. */
export const LIST_CHUNK_BYTES = 1 << 20;

/**
 * A list body ready to send: its exact size, and its bytes produced piece by piece, so a large
 * list starts going out (and the client starts decrypting and reading) while the rest is still
 * being copied and encrypted, and no second copy of the whole list is held at once.
 */
export class RawListBody {
  readonly byteLength: number;

  constructor(
    private readonly head: Buffer,
    private readonly items: readonly RawItem[],
  ) {
    let size = head.length + TAIL.length + Math.max(items.length - 1, 0);
    // The member is ASCII (digits and punctuation), so its length is its byte length.
    for (const item of items) size += item.bytes.length + item.member.length;
    this.byteLength = size;
  }

  /** What to send: the body whole when small, else its pieces as they are made. */
  payload(): Buffer | Iterable<Buffer> {
    return this.byteLength <= LIST_CHUNK_BYTES ? this.toBuffer() : this.chunks(LIST_CHUNK_BYTES);
  }

  /** The body in pieces of about `target` bytes (at least one item each), each a new buffer. */
  *chunks(target: number): Generator<Buffer> {
    const { items } = this;
    let from = 0;
    let bytes = this.head.length;
    for (let i = 0; i < items.length; i++) {
      bytes += items[i]!.bytes.length + items[i]!.member.length + (i > 0 ? 1 : 0);
      if (bytes >= target && i + 1 < items.length) {
        yield this.fill(from, i + 1, bytes);
        from = i + 1;
        bytes = 0;
      }
    }
    yield this.fill(from, items.length, bytes + TAIL.length);
  }

  /** The whole body in one buffer. */
  toBuffer(): Buffer {
    return this.fill(0, this.items.length, this.byteLength);
  }

  /**
   * Items [from, to) (with the head first when from is 0, and TAIL when to is the end) in a
   * buffer of `size` bytes. Per item: one copy of the stored bytes shifted right by the
   * member's length, a move of the short part before `at` back into place, and the member
   * written over the gap (Buffer.copy/subarray would make a view object per call).
   */
  private fill(from: number, to: number, size: number): Buffer {
    const out = Buffer.allocUnsafe(size);
    let pos = 0;
    if (from === 0) {
      out.set(this.head, 0);
      pos = this.head.length;
    }
    for (let i = from; i < to; i++) {
      const { bytes, at, member } = this.items[i]!;
      if (i > 0) out[pos++] = 0x2c;
      if (at < 0) {
        out.set(bytes, pos);
        pos += bytes.length;
        continue;
      }
      const m = member.length;
      out.set(bytes, pos + m);
      out.copyWithin(pos, pos + m, pos + m + at);
      for (let k = 0; k < m; k++) out[pos + at + k] = member.charCodeAt(k);
      pos += bytes.length + m;
    }
    if (to === this.items.length) {
      out.set(TAIL, pos);
      pos += TAIL.length;
    }
    if (pos !== size) throw new Error(`raw list size mismatch: wrote ${pos} of ${size} bytes`);
    return out;
  }
}

/** The list's JSON, or undefined when the fast path does not apply (use store.list). */
export async function rawList(
  store: RawListSource,
  ctx: RequestContext,
  namespace: string | undefined,
  options: ListOptions,
): Promise<RawListBody | undefined> {
  const { rt } = store;
  if (!servesStoredBytes(rt)) return undefined;
  const filter = store.filter(ctx, options.labelSelector, options.fieldSelector);
  const prefix = collectionPrefix(rt, namespace);
  // A value that does not decode fails the list with kube's StorageReadError (corrupt-object.ts).
  const corrupt = new ListReadErrors();
  const select = corrupt.guard((kv) => {
    // Without a selector or visibility filter every object is in: nothing to parse.
    if (!filter.matchesEverything && !filter.matches(store.decodeForWatch(kv))) return undefined;
    return rawItem(store, kv);
  });
  const result = await listObjects(store.storage, prefix, options, filter, select);
  corrupt.throwIfAny(store.gr, prefix, ctx.canSee !== undefined);
  // The same members in the same order as JSON.stringify of store.list's KubeList.
  const head = `{"apiVersion":${JSON.stringify(`${rt.group}/${rt.version}`)},"kind":${JSON.stringify(rt.listKind)},"metadata":${JSON.stringify(result.metadata)},"items":[`;
  return new RawListBody(Buffer.from(head), result.items);
}

function rawItem(store: RawListSource, kv: KeyValue): RawItem {
  if (!store.versions.sendableAsStored(store.rt, kv)) {
    // Not the bytes the normal path would send (raw-read.ts): its encoding of this one object (a
    // value that does not decode throws here, and the list is refused, as kube does).
    return { bytes: Buffer.from(JSON.stringify(store.decodeForWatch(kv))), at: -1, member: "" };
  }
  const at = metadataBodyAt(kv.value);
  return { bytes: kv.value, at, member: resourceVersionMember(kv.modRevision, kv.value[at] === 0x7d) };
}
