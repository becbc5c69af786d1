/**
 * The LIST fast path, the list counterpart of raw-read.ts: when a kind's strategy neither
 * transforms stored objects (fromStorage) nor what callers see (present), a list's JSON is its
 * envelope around each object's stored bytes with the resourceVersion spliced in. Revision
 * choice, pagination and filtering are store-list.ts's own, so they cannot drift from the
 * normal path; only the per-item JSON.parse/JSON.stringify is skipped (a selector or a per-caller
 * visibility filter still parses each object, to decide, but the bytes sent are the stored ones).
 * The stored bytes are the same whether the cache or the storage answered, so no cache is needed.
 */
import type { KeyValue } from "../../storage/interface.js";
import { decodeObject } from "../codec.js";
import { collectionPrefix } from "../keys.js";
import type { ListOptions } from "../options.js";
import type { RequestContext } from "../request-context.js";
import type { Store } from "../store.js";
import { listObjects } from "../store-list.js";
import { metadataBodyAt, resourceVersionMember } from "./shared-codec.js";

/** An item's bytes and where its resourceVersion member goes (-1: `bytes` is the whole item already). */
interface RawItem {
  bytes: Buffer;
  at: number;
  member: string;
}

const TAIL = "]}";

/** The list's JSON, or undefined when the fast path does not apply (use store.list). */
export async function rawList(
  store: Store,
  ctx: RequestContext,
  namespace: string | undefined,
  options: ListOptions,
): Promise<Buffer | undefined> {
  const { rt } = store;
  if (rt.strategy.present || rt.strategy.fromStorage) return undefined;
  const filter = store.filter(ctx, options.labelSelector, options.fieldSelector);
  const result = await listObjects(store.storage, collectionPrefix(rt, namespace), options, filter, (kv) => {
    // Without a selector or visibility filter every object is in: nothing to parse.
    if (!filter.matchesEverything && !filter.matches(decodeObject(kv))) return undefined;
    return rawItem(kv);
  });
  // The same members in the same order as JSON.stringify of store.list's KubeList.
  const head = `{"apiVersion":${JSON.stringify(`${rt.group}/${rt.version}`)},"kind":${JSON.stringify(rt.listKind)},"metadata":${JSON.stringify(result.metadata)},"items":[`;
  return join(head, result.items);
}

function rawItem(kv: KeyValue): RawItem {
  const at = metadataBodyAt(kv.value);
  if (at < 0) {
    // Not shaped as encodeObject writes it: the normal path's encoding of this one object.
    return { bytes: Buffer.from(JSON.stringify(decodeObject(kv))), at: -1, member: "" };
  }
  return { bytes: kv.value, at, member: resourceVersionMember(kv.modRevision, kv.value[at] === 0x7d) };
}

/**
 * head + items joined by commas + TAIL, in one buffer of the exact size. Per item: one copy of
 * the stored bytes (shifted right by the member's length), a move of the short part before
 * `at` back into place, and the member written over the gap. Buffer.copy/subarray would make a
 * view object per call, which costs more than the bytes at 10,000 items.
 */
function join(head: string, items: readonly RawItem[]): Buffer {
  let size = Buffer.byteLength(head) + TAIL.length + Math.max(items.length - 1, 0);
  // The member is ASCII (digits and punctuation), so its length is its byte length.
  for (const item of items) size += item.bytes.length + item.member.length;
  const out = Buffer.allocUnsafe(size);
  let pos = out.write(head, 0);
  for (let i = 0; i < items.length; i++) {
    const { bytes, at, member } = items[i]!;
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
  pos += out.write(TAIL, pos, "latin1");
  if (pos !== size) throw new Error(`raw list size mismatch: wrote ${pos} of ${size} bytes`);
  return out;
}
