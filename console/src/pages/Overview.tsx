import { useQuery } from "@tanstack/react-query";
import { describeError, errorToShow, request } from "../api/client";
import { listObjects } from "../api/resources";
import type { KubeList, KubeObject } from "../api/types";
import { type CoreEvent, EVENTS, EventList, eventTime } from "../components/ObjectEvents";
import { allKinds, type KindInfo, kindOf } from "../kinds";
import { Link } from "../router";

const RECENT_EVENTS = 10;

/** The landing page: how many of each kind, the clusters that fail, and what happened lately. */
export function Overview() {
  return (
    <section>
      <h1>Overview</h1>
      <Counts />
      <FailingClusters />
      <RecentEvents />
    </section>
  );
}

/** Pages read to count a kind when the server gives no remainingItemCount. */
const COUNT_PAGE = 500;
const COUNT_PAGES = 4;

/**
 * How many objects of a kind the caller sees. One call of one object is enough when the server
 * says how many are left (remainingItemCount); for a caller who sees only some objects it does
 * not (it would count the others), so pages are read, up to a few: beyond them, "N+".
 */
async function countOf(kind: KindInfo): Promise<string> {
  const first = await listObjects(kind, { limit: 1 });
  if (!first.metadata.continue) return String(first.items.length);
  if (first.metadata.remainingItemCount !== undefined)
    return String(first.items.length + first.metadata.remainingItemCount);
  let count = 0;
  let token: string | undefined;
  for (let page = 0; page < COUNT_PAGES; page++) {
    const list = await listObjects(kind, { limit: COUNT_PAGE, continueToken: token });
    count += list.items.length;
    token = list.metadata.continue || undefined;
    if (!token) return String(count);
  }
  return `${count}+`;
}

function Counts() {
  const counts = useQuery({
    queryKey: ["overview-counts"],
    queryFn: () => Promise.all(allKinds().map((k) => countOf(k).catch(() => undefined))),
    refetchInterval: 10_000,
  });
  return (
    <>
      <h2>What there is</h2>
      {counts.isPending && <p>Counting…</p>}
      {counts.data && (
        <ul className="counts">
          {allKinds().map((k, i) => (
            <li key={k.plural}>
              <Link to={`/k/${k.plural}`}>
                <strong>{counts.data[i] ?? "?"}</strong> {k.title}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function FailingClusters() {
  const clusters = useQuery({
    queryKey: ["list", "clusters", "overview"],
    queryFn: () => listObjects(kindOf("clusters")!, { limit: 500 }),
    refetchInterval: 10_000,
  });
  const failing = (clusters.data?.items ?? []).filter(
    (c) => c.status?.phase === "Failed" || c.status?.online === false,
  );
  return (
    <>
      <h2>Clusters that fail</h2>
      {!!errorToShow(clusters.error) && <p className="error">{describeError(clusters.error)}</p>}
      {clusters.data && clusters.data.items.length === 0 && (
        <p className="empty">
          No cluster is connected yet: <Link to="/connect-cluster">connect a cluster</Link>.
        </p>
      )}
      {clusters.data && clusters.data.items.length > 0 && failing.length === 0 && (
        <p className="empty">None: every cluster answered its last check.</p>
      )}
      {failing.length > 0 && (
        <ul>
          {failing.map((c: KubeObject) => (
            <li key={c.metadata.uid}>
              <Link to={`/k/clusters/${encodeURIComponent(c.metadata.name ?? "")}`}>{c.metadata.name}</Link>{" "}
              <span className="badge bad">{String(c.status?.phase ?? "unreachable")}</span>{" "}
              {String(c.status?.reason ?? "")} {String(c.status?.message ?? "")}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function RecentEvents() {
  const events = useQuery({
    queryKey: ["overview-events"],
    queryFn: () => request<KubeList & { items: CoreEvent[] }>("GET", `${EVENTS}?limit=500`),
    refetchInterval: 10_000,
  });
  const recent = [...((events.data?.items ?? []) as CoreEvent[])]
    .sort((a, b) => eventTime(b).localeCompare(eventTime(a)))
    .slice(0, RECENT_EVENTS);
  return (
    <>
      <h2>Recent events</h2>
      {!!errorToShow(events.error) && <p className="error">{describeError(events.error)}</p>}
      {events.data && recent.length === 0 && <p className="empty">Nothing has happened that you may see yet.</p>}
      {recent.length > 0 && <EventList events={recent} withObject />}
    </>
  );
}
