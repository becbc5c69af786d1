import { useMemo, useState } from "react";
import { describeError, errorToShow } from "../api/client";
import { type Cells, cellKey } from "../api/table";
import type { KubeObject } from "../api/types";
import { compareText, SortHeader } from "../components/lists/SortHeader";
import { PAGE_SIZE, useLiveList } from "../components/useLiveList";
import { displayName, type KindInfo } from "../kinds";
import { useCan } from "../permissions";
import { BASE, Link, useLocation } from "../router";

/** A column the list sorts by: the name, namespace, display name, age, or one of the kind's columns. */
interface SortColumn {
  key: string;
  label: string;
  value: (o: KubeObject) => string;
}

/** The list's columns; the kind's own show the server's cells (`cells`, by cellKey). */
function sortColumns(kind: KindInfo, cells: Record<string, Cells>): SortColumn[] {
  return [
    { key: "name", label: "Name", value: (o) => o.metadata.name ?? "" },
    ...(kind.namespaced
      ? [{ key: "namespace", label: "Namespace", value: (o: KubeObject) => o.metadata.namespace ?? "" }]
      : []),
    { key: "displayName", label: "Display name", value: displayName },
    ...kind.columns.map((name) => ({
      key: name,
      label: name,
      value: (o: KubeObject) => cells[cellKey(o)]?.[name] ?? "",
    })),
    { key: "created", label: "Created", value: (o) => o.metadata.creationTimestamp ?? "" },
  ];
}

/**
 * One page of a kind. The search, label selector and sort live in the address
 * (`?q=…&labels=…&sort=name&order=desc`), so a link or a reload shows the same list.
 */
export function ListPage({ kind }: { kind: KindInfo }) {
  const { path, search: params } = useLocation();
  const applied = { search: params.get("q") ?? "", labels: params.get("labels") ?? "" };
  const [search, setSearch] = useState(applied.search);
  const [labels, setLabels] = useState(applied.labels);
  const [tokens, setTokens] = useState<string[]>([]);
  const token = tokens[tokens.length - 1];
  const query = useLiveList(kind, applied.labels, token, applied.search);
  const columns = sortColumns(kind, query.data?.cells ?? {});
  const sort = columns.find((c) => c.key === params.get("sort")) ?? columns[0]!;
  const descending = params.get("order") === "desc";
  const canCreate = useCan("create", kind.plural, { namespace: kind.defaultNamespace });
  const items = useMemo(() => sorted(query.data?.items ?? [], sort, descending), [query.data, sort, descending]);
  const createTo = kind.plural === "ownedaccesskeys" ? "/new-access-key" : `/k/${kind.plural}/new`;
  const setParams = (change: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(change)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    const q = next.toString();
    window.history.replaceState(null, "", `${BASE}${path}${q ? `?${q}` : ""}`);
    window.dispatchEvent(new PopStateEvent("popstate"));
  };
  const sortBy = (key: string) =>
    setParams({ sort: key === "name" ? "" : key, order: key === sort.key && !descending ? "desc" : "" });
  const filtered = !!(applied.search || applied.labels);
  return (
    <section aria-busy={canCreate === undefined}>
      <div className="heading">
        <h1>{kind.title}</h1>
        {canCreate && (
          <Link to={createTo} className="button primary">
            Create
          </Link>
        )}
        {kind.plural === "clusters" && canCreate && (
          <Link to="/connect-cluster" className="button">
            Connect a cluster
          </Link>
        )}
      </div>
      <search>
        <form
          className="filters"
          onSubmit={(e) => {
            e.preventDefault();
            setTokens([]);
            setParams({ q: search.trim(), labels: labels.trim() });
          }}
        >
          <label>
            Name or display name
            <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
          </label>
          <label>
            Label selector
            <input value={labels} placeholder="team=web,env!=prod" onChange={(e) => setLabels(e.target.value)} />
          </label>
          <button type="submit">Filter</button>
        </form>
      </search>
      {!!errorToShow(query.error) && (
        <p role="alert" className="error">
          {describeError(query.error)}
        </p>
      )}
      {query.isPending && <p aria-live="polite">Loading…</p>}
      {query.data && items.length === 0 && (
        <EmptyList kind={kind} filtered={filtered} canCreate={!!canCreate} createTo={createTo} />
      )}
      {query.data && items.length > 0 && (
        <ObjectTable kind={kind} items={items} columns={columns} sort={sort} descending={descending} onSort={sortBy} />
      )}
      <Pager
        count={items.length}
        remaining={query.data?.remaining}
        page={tokens.length + 1}
        onPrevious={tokens.length ? () => setTokens(tokens.slice(0, -1)) : undefined}
        onNext={query.data?.continueToken ? () => setTokens([...tokens, query.data.continueToken!]) : undefined}
      />
    </section>
  );
}

function sorted(items: KubeObject[], by: SortColumn, descending: boolean): KubeObject[] {
  const byName = (a: KubeObject, b: KubeObject) =>
    compareText(a.metadata.name ?? "", b.metadata.name ?? "") ||
    compareText(a.metadata.namespace ?? "", b.metadata.namespace ?? "");
  const copy = [...items].sort((a, b) => compareText(by.value(a), by.value(b)) || byName(a, b));
  return descending ? copy.reverse() : copy;
}

/** What to do when a list is empty: widen the filter, or create the first one. */
function EmptyList(props: { kind: KindInfo; filtered: boolean; canCreate: boolean; createTo: string }) {
  if (props.filtered)
    return <p className="empty">Nothing matches this search or label selector. Clear them to see every one.</p>;
  return (
    <div className="empty">
      <p>No {props.kind.title.toLowerCase()} yet.</p>
      {props.canCreate ? (
        <p>
          <Link to={props.createTo}>Create the first one</Link>.
        </p>
      ) : (
        <p>You may not create any; ask an administrator if you expected to see some here.</p>
      )}
    </div>
  );
}

export function detailPath(kind: KindInfo, o: KubeObject): string {
  const name = encodeURIComponent(o.metadata.name ?? "");
  return kind.namespaced
    ? `/k/${kind.plural}/${encodeURIComponent(o.metadata.namespace ?? "")}/${name}`
    : `/k/${kind.plural}/${name}`;
}

function ObjectTable(props: {
  kind: KindInfo;
  items: KubeObject[];
  columns: SortColumn[];
  sort: SortColumn;
  descending: boolean;
  onSort: (key: string) => void;
}) {
  const { kind, items } = props;
  const kindColumns = props.columns.filter((c) => kind.columns.includes(c.key));
  const header = (key: string) => {
    const c = props.columns.find((x) => x.key === key)!;
    return (
      <SortHeader
        key={key}
        label={c.label}
        active={props.sort.key === key}
        descending={props.descending}
        onSort={() => props.onSort(key)}
      />
    );
  };
  return (
    <div className="table-wrap">
      <table className="stack">
        <thead>
          <tr>
            {header("name")}
            {kind.namespaced && header("namespace")}
            {header("displayName")}
            {kind.columns.map((name) => header(name))}
            {header("created")}
            <th scope="col">Labels</th>
          </tr>
        </thead>
        <tbody>
          {items.map((o) => (
            <tr key={o.metadata.uid ?? o.metadata.name}>
              <td data-label="Name">
                <Link to={detailPath(kind, o)}>{o.metadata.name}</Link>
                {o.metadata.deletionTimestamp && <span className="badge warn">terminating</span>}
              </td>
              {kind.namespaced && <td data-label="Namespace">{o.metadata.namespace}</td>}
              <td data-label="Display name">{displayName(o)}</td>
              {kindColumns.map((c) => (
                <td key={c.key} data-label={c.label}>
                  {c.value(o)}
                </td>
              ))}
              <td data-label="Created">
                <time dateTime={o.metadata.creationTimestamp}>{o.metadata.creationTimestamp?.slice(0, 10)}</time>
              </td>
              <td data-label="Labels">
                {Object.entries(o.metadata.labels ?? {}).map(([k, v]) => (
                  <span className="badge" key={k}>
                    {k}={v}
                  </span>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Pager(props: {
  count: number;
  remaining?: number;
  page: number;
  onPrevious?: () => void;
  onNext?: () => void;
}) {
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" onClick={props.onPrevious} disabled={!props.onPrevious}>
        Previous
      </button>
      <span>
        Page {props.page}
        {props.remaining !== undefined && ` · ${props.remaining} more after this page`}
      </span>
      <button type="button" onClick={props.onNext} disabled={!props.onNext}>
        Next
      </button>
      <span className="sr-only">{PAGE_SIZE} per page</span>
    </nav>
  );
}
