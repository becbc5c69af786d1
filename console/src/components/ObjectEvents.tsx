import { useQuery } from "@tanstack/react-query";
import { describeError, errorToShow, request } from "../api/client";
import type { KubeList, KubeObject } from "../api/types";

const CORE_API = "/kubernetes/management/api/v1";
/** Core v1 Events the platform writes (docs/events.md). */
export const EVENTS = `${CORE_API}/events`;

export interface CoreEvent {
  metadata: { uid?: string; creationTimestamp?: string };
  type?: string;
  reason?: string;
  message?: string;
  lastTimestamp?: string;
  eventTime?: string;
  involvedObject?: { kind?: string; name?: string; namespace?: string };
}

export const eventTime = (e: CoreEvent) => e.lastTimestamp || e.eventTime || e.metadata.creationTimestamp || "";

/** Events, newest first, one line each; `withObject` names the object each is about. */
export function EventList({ events, withObject }: { events: CoreEvent[]; withObject: boolean }) {
  return (
    <ul className="events">
      {events.map((e) => (
        <li key={e.metadata.uid}>
          <span className={`badge ${e.type === "Warning" ? "warn" : ""}`}>{e.type}</span> <strong>{e.reason}</strong>
          {withObject && (
            <>
              {" "}
              {e.involvedObject?.kind} <span className="mono">{e.involvedObject?.name}</span>
            </>
          )}
          : {e.message}{" "}
          <time className="hint" dateTime={eventTime(e)}>
            {eventTime(e).replace("T", " ").replace("Z", " UTC")}
          </time>
        </li>
      ))}
    </ul>
  );
}

/** The Events about one object (by its uid, so a namesake made later has its own), newest first. */
export function ObjectEvents({ o }: { o: KubeObject }) {
  const ns = o.metadata.namespace ?? "";
  const selector = `involvedObject.uid=${o.metadata.uid ?? ""}`;
  const events = useQuery({
    queryKey: ["object-events", ns, o.metadata.uid],
    queryFn: () =>
      request<KubeList & { items: CoreEvent[] }>(
        "GET",
        `${ns ? `${CORE_API}/namespaces/${encodeURIComponent(ns)}/events` : EVENTS}?fieldSelector=${encodeURIComponent(selector)}`,
      ).then((l) => l.items),
    refetchInterval: 10_000,
  });
  const sorted = [...(events.data ?? [])].sort((a, b) => eventTime(b).localeCompare(eventTime(a)));
  return (
    <>
      <h2>Events</h2>
      {!!errorToShow(events.error) && <p className="error">{describeError(events.error)}</p>}
      {events.data && sorted.length === 0 && <p className="empty">No events about it that you may see.</p>}
      {sorted.length > 0 && <EventList events={sorted} withObject={false} />}
    </>
  );
}
