import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { API, describeError, request } from "../../api/client";
import type { KubeObject } from "../../api/types";
import { useCan } from "../../permissions";
import { timeAgo } from "../relative-time";

/**
 * Sleep mode of a virtual cluster instance (docs/virtual-clusters.md "Sleep mode"): its last
 * activity, whether it sleeps and why, and the button that puts it to sleep or wakes it. The
 * actions need `use` on the instance, the right the gateway asks; without it they are not offered.
 */
export function InstanceSleep({ instance }: { instance: KubeObject }) {
  const ns = instance.metadata.namespace ?? "";
  const name = instance.metadata.name ?? "";
  const canUse = useCan("use", "virtualclusterinstances", { name, namespace: ns });
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState("");
  const [error, setError] = useState("");
  const sleep = instance.status?.sleep as { since?: string; reason?: string } | undefined;
  const lastActivity = instance.status?.lastActivity as string | undefined;
  const sleepAfter = Number(instance.spec?.sleepAfter ?? 0);
  const deleteAfter = Number(instance.spec?.deleteAfter ?? 0);
  const act = async (action: "sleep" | "wakeup") => {
    setBusy(true);
    setDone("");
    setError("");
    try {
      const path = `${API}/namespaces/${encodeURIComponent(ns)}/virtualclusterinstances/${encodeURIComponent(name)}/${action}`;
      const status = await request<{ message?: string }>("POST", path, { body: {} });
      setDone(status?.message || (action === "sleep" ? `${name} is going to sleep.` : `${name} is waking up.`));
      await queryClient.invalidateQueries({ queryKey: ["object", "virtualclusterinstances", ns, name] });
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <h2>Sleep mode</h2>
      <dl className="facts">
        <div>
          <dt>Last activity</dt>
          <dd>
            {lastActivity ? (
              <time dateTime={lastActivity} title={new Date(lastActivity).toString()}>
                {timeAgo(lastActivity)}
              </time>
            ) : (
              "none recorded yet (idle time counts from creation)"
            )}
          </dd>
        </div>
        <div>
          <dt>Sleep state</dt>
          <dd>
            {sleep ? (
              <>
                <span className="badge">asleep</span>{" "}
                {sleep.reason === "Idle" ? "idle too long" : "put to sleep by hand"}
                {sleep.since && (
                  <>
                    , since{" "}
                    <time dateTime={sleep.since} title={new Date(sleep.since).toString()}>
                      {timeAgo(sleep.since)}
                    </time>
                  </>
                )}
              </>
            ) : (
              <span className="badge">awake</span>
            )}
          </dd>
        </div>
        <div>
          <dt>Sleeps after</dt>
          <dd>{sleepAfter > 0 ? `${sleepAfter} s without activity` : "never"}</dd>
        </div>
        <div>
          <dt>Deleted after</dt>
          <dd>{deleteAfter > 0 ? `${deleteAfter} s without activity` : "never"}</dd>
        </div>
      </dl>
      {canUse === false && <p>Putting it to sleep or waking it up needs the right use on this virtual cluster.</p>}
      {canUse && (
        <p>
          <button type="button" disabled={busy} onClick={() => act(sleep ? "wakeup" : "sleep")}>
            {sleep ? "Wake up" : "Sleep"}
          </button>
        </p>
      )}
      {done && <p role="status">{done}</p>}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </>
  );
}
