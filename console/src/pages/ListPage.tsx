import { useMemo, useState } from "react";
import { describeError } from "../api/client";
import type { KubeObject } from "../api/types";
import { PAGE_SIZE, useLiveList } from "../components/useLiveList";
import { displayName, type KindInfo } from "../kinds";
import { useCan } from "../permissions";
import { Link } from "../router";

type SortKey = "name" | "displayName" | "created";

export function ListPage({ kind }: { kind: KindInfo }) {
  const [search, setSearch] = useState("");
  const [labels, setLabels] = useState("");
  const [applied, setApplied] = useState({ search: "", labels: "" });
  const [tokens, setTokens] = useState<string[]>([]);
  const [sort, setSort] = useState<SortKey>("name");
  const token = tokens[tokens.length - 1];
  const query = useLiveList(kind, applied.labels, token, applied.search);
  const canCreate = useCan("create", kind.plural, { namespace: kind.defaultNamespace });
  const items = useMemo(() => sorted(query.data?.items ?? [], sort), [query.data, sort]);
  const createTo = kind.plural === "ownedaccesskeys" ? "/new-access-key" : `/k/${kind.plural}/new`;
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
            setApplied({ search, labels });
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
          <label>
            Sort this page by
            <select value={sort} onChange={(e) => setSort(e.target.value as SortKey)}>
              <option value="name">Name</option>
              <option value="displayName">Display name</option>
              <option value="created">Newest first</option>
            </select>
          </label>
          <button type="submit">Filter</button>
        </form>
      </search>
      {query.error && (
        <p role="alert" className="error">
          {describeError(query.error)}
        </p>
      )}
      {query.isPending && <p aria-live="polite">Loading…</p>}
      {query.data && <ObjectTable kind={kind} items={items} />}
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

function sorted(items: KubeObject[], by: SortKey): KubeObject[] {
  const copy = [...items];
  if (by === "displayName") copy.sort((a, b) => displayName(a).localeCompare(displayName(b)));
  else if (by === "created")
    copy.sort((a, b) => (b.metadata.creationTimestamp ?? "").localeCompare(a.metadata.creationTimestamp ?? ""));
  return copy;
}

export function detailPath(kind: KindInfo, o: KubeObject): string {
  const name = encodeURIComponent(o.metadata.name ?? "");
  return kind.namespaced
    ? `/k/${kind.plural}/${encodeURIComponent(o.metadata.namespace ?? "")}/${name}`
    : `/k/${kind.plural}/${name}`;
}

function ObjectTable({ kind, items }: { kind: KindInfo; items: KubeObject[] }) {
  if (items.length === 0) return <p>Nothing here yet.</p>;
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            {kind.namespaced && <th scope="col">Namespace</th>}
            <th scope="col">Display name</th>
            {kind.columns.map((c) => (
              <th scope="col" key={c.label}>
                {c.label}
              </th>
            ))}
            <th scope="col">Labels</th>
          </tr>
        </thead>
        <tbody>
          {items.map((o) => (
            <tr key={o.metadata.uid ?? o.metadata.name}>
              <td>
                <Link to={detailPath(kind, o)}>{o.metadata.name}</Link>
                {o.metadata.deletionTimestamp && <span className="badge warn">terminating</span>}
              </td>
              {kind.namespaced && <td>{o.metadata.namespace}</td>}
              <td>{displayName(o)}</td>
              {kind.columns.map((c) => (
                <td key={c.label}>{c.value(o)}</td>
              ))}
              <td>
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
