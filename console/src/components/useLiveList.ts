import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { watchObjects } from "../api/resources";
import { type Cells, type ListWithCells, listWithCells } from "../api/table";
import type { KubeObject } from "../api/types";
import type { KindInfo } from "../kinds";

export const PAGE_SIZE = 50;
/** While searching by name the list is read in larger pages and filtered here. */
const SEARCH_PAGE = 500;

export interface PageResult {
  items: KubeObject[];
  resourceVersion: string;
  continueToken?: string;
  remaining?: number;
  /** The kind's Table cells of each item, by cellKey (api/table.ts). */
  cells: Record<string, Cells>;
}

/**
 * One page of a kind: `limit`/`continue` paging on the server, the label selector there too.
 * A name search reads on (in pages of 500) until a page of matches is found or the list ends.
 */
async function fetchPage(kind: KindInfo, labelSelector: string, token: string | undefined, search: string) {
  const needle = search.trim().toLowerCase();
  if (!needle) {
    const list = await listWithCells(kind, { limit: PAGE_SIZE, continueToken: token, labelSelector });
    return pageOf(list, list.items);
  }
  const matches: KubeObject[] = [];
  let list: ListWithCells;
  const cells: Record<string, Cells> = {};
  let next = token;
  do {
    list = await listWithCells(kind, { limit: SEARCH_PAGE, continueToken: next, labelSelector });
    Object.assign(cells, list.cells);
    for (const o of list.items) {
      const dn = String(o.spec?.displayName ?? "").toLowerCase();
      if ((o.metadata.name ?? "").toLowerCase().includes(needle) || dn.includes(needle)) matches.push(o);
    }
    next = list.metadata.continue || undefined;
  } while (next && matches.length < PAGE_SIZE);
  return pageOf({ ...list, cells }, matches);
}

function pageOf(list: ListWithCells, items: KubeObject[]): PageResult {
  return {
    items,
    cells: list.cells,
    resourceVersion: list.metadata.resourceVersion ?? "",
    continueToken: list.metadata.continue || undefined,
    remaining: list.metadata.remainingItemCount,
  };
}

/**
 * The page, kept current by a watch from its resourceVersion: any change to the kind reloads
 * the page (a changed object may enter or leave it), at most every half second.
 */
export function useLiveList(kind: KindInfo, labelSelector: string, token: string | undefined, search: string) {
  const queryClient = useQueryClient();
  const queryKey = ["list", kind.plural, labelSelector, token ?? "", search];
  const query = useQuery({ queryKey, queryFn: () => fetchPage(kind, labelSelector, token, search) });
  const rv = query.data?.resourceVersion;
  useEffect(() => {
    if (!rv) return;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reload = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        queryClient.invalidateQueries({ queryKey: ["list", kind.plural] });
      }, 500);
    };
    watchObjects(kind, rv, (e) => e.type !== "BOOKMARK" && reload(), abort.signal)
      .then(reload, () => {
        if (!abort.signal.aborted) setTimeout(reload, 2000);
      })
      .catch(() => undefined);
    return () => {
      abort.abort();
      if (timer) clearTimeout(timer);
    };
  }, [kind, rv, queryClient]);
  return query;
}
