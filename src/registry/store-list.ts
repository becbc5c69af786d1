import { errors, type FieldError, fieldError } from "../api/errors.js";
import type { ListMeta } from "../api/object.js";
import { isStorageError } from "../storage/errors.js";
import type { KeyValue, Storage } from "../storage/interface.js";
import { continueTokenExpired, decodeContinue, encodeContinue } from "./continue-token.js";
import type { ObjectFilter } from "./filter.js";
import { awaitNotOlderThan, awaitRevision, requestedRevision } from "./fresh-revision.js";
import type { ListOptions } from "./options.js";

/**
 * A list as kube-apiserver serves it: at a revision chosen from resourceVersion and
 * resourceVersionMatch, filtered, paginated with limit/continue at one snapshot.
 * `select` turns a stored object into a list item, or undefined when the filter rejects it;
 * it is generic so the raw-bytes list (cache/raw-list.ts) shares every rule here.
 */
export async function listObjects<T>(
  storage: Storage,
  prefix: string,
  options: ListOptions,
  filter: Pick<ObjectFilter, "exactName" | "matchesEverything">,
  select: (kv: KeyValue) => T | undefined,
): Promise<{ items: T[]; metadata: ListMeta }> {
  const { revision: requested, after: startAfter } = await chooseListRevision(storage, options);
  const limit = options.limit && options.limit > 0 ? options.limit : 0;
  const items: T[] = [];
  let after = startAfter;
  let revision = requested;
  let more = false;
  let remaining = 0;
  let lastKey: string | undefined;
  try {
    if (filter.exactName !== undefined) {
      // A name selector needs one key; read it at the same revision.
      const page = await storage.list(prefix, { revision: requested || undefined });
      revision = page.revision;
      for (const kv of page.items) {
        if (!kv.key.endsWith(`/${filter.exactName}`)) continue;
        const item = select(kv);
        if (item !== undefined) items.push(item);
      }
      return { items, metadata: { resourceVersion: String(revision) } };
    }
    for (;;) {
      const want = limit ? Math.max(limit - items.length, 1) : 0;
      const page = await storage.list(prefix, { revision: revision || undefined, after, limit: want });
      revision = page.revision;
      for (const kv of page.items) {
        lastKey = kv.key;
        const item = select(kv);
        if (item !== undefined) items.push(item);
        if (limit && items.length >= limit) break;
      }
      const cutShort = limit > 0 && items.length >= limit && lastKey !== page.items.at(-1)?.key;
      if (limit && items.length >= limit) {
        more = page.more || cutShort;
        remaining =
          page.remaining + (cutShort ? page.items.length - page.items.findIndex((kv) => kv.key === lastKey) - 1 : 0);
        break;
      }
      if (!page.more) break;
      after = page.items.at(-1)?.key;
    }
  } catch (err) {
    if (isStorageError(err, "Compacted")) {
      throw options.continue ? continueTokenExpired() : errors.resourceVersionTooOld();
    }
    throw err;
  }
  const metadata: ListMeta = { resourceVersion: String(revision) };
  if (more && lastKey !== undefined) {
    metadata.continue = encodeContinue({ revision, after: lastKey });
    if (filter.matchesEverything) metadata.remainingItemCount = remaining;
  }
  return { items, metadata };
}

/** The resourceVersion/resourceVersionMatch table of the Kubernetes API concepts page. */
async function chooseListRevision(
  storage: Storage,
  options: ListOptions,
): Promise<{ revision: number; after?: string }> {
  const match = options.resourceVersionMatch;
  const matchErrors = resourceVersionMatchErrors(options);
  if (matchErrors.length) throw errors.invalid("ListOptions", "meta.k8s.io", "", matchErrors);
  const rv = requestedRevision(options.resourceVersion);
  if (options.continue) {
    if (options.resourceVersion && options.resourceVersion !== "0") {
      throw errors.badRequest("specifying resource version is not allowed when using continue");
    }
    const token = decodeContinue(options.continue);
    const compacted = await storage.compactedRevision();
    if (token.revision < compacted) throw continueTokenExpired();
    return { revision: token.revision, after: token.after };
  }
  if (match === "Exact") {
    await awaitRevision(storage, rv!, options.resourceVersion!, options.freshnessWaitMs);
    return { revision: rv! };
  }
  // NotOlderThan (explicit or the legacy default): any state at least as new as rv; the current one is.
  await awaitNotOlderThan(storage, options.resourceVersion, options.freshnessWaitMs);
  return { revision: 0 };
}

/**
 * What kube-apiserver's ValidateListOptions says of resourceVersionMatch: every problem at once,
 * as one 422 Invalid of ListOptions.meta.k8s.io.
 */
function resourceVersionMatchErrors(options: ListOptions): FieldError[] {
  const match = options.resourceVersionMatch;
  if (!match) return [];
  const errs: FieldError[] = [];
  const forbidden = (why: string) => errs.push(fieldError("FieldValueForbidden", "resourceVersionMatch", why));
  if (!options.resourceVersion) forbidden("resourceVersionMatch is forbidden unless resourceVersion is provided");
  if (options.continue) forbidden("resourceVersionMatch is forbidden when continue is provided");
  if (match !== "Exact" && match !== "NotOlderThan") {
    errs.push(
      fieldError("FieldValueNotSupported", "resourceVersionMatch", 'supported values: "Exact", "NotOlderThan"', match),
    );
  }
  if (match === "Exact" && options.resourceVersion === "0") {
    forbidden('resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  }
  return errs;
}
