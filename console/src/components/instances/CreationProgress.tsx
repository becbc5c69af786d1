import { useQuery } from "@tanstack/react-query";
import { request } from "../../api/client";
import { describeReadError } from "../../api/read-error";
import type { KubeObject } from "../../api/types";
import { Link } from "../../router";
import { InstancePhase, PhaseReason, SETTLED_PHASES } from "./InstancePhase";

/**
 * How often a new instance is read again until it settles, as `platform ... create --wait` does
 * (src/cli/instance-wait.ts): often enough to feel prompt, rare enough to cost the server nothing.
 */
const FOLLOW_INTERVAL_MS = 1000;

/**
 * What became of an instance just created, said live under the form that created it: its phase
 * and why, read again until it is Ready or Failed (with the reason in words). Nothing waits on
 * it: the user may leave the page, the platform carries on, and the instance's page (`page`)
 * shows the same.
 */
export function CreationProgress(props: { noun: string; name: string; path: string; page: string }) {
  const { noun, name } = props;
  const q = useQuery({
    queryKey: ["object-followed", props.path],
    queryFn: () => request<KubeObject>("GET", props.path),
    refetchInterval: (query) =>
      SETTLED_PHASES.has(String(query.state.data?.status?.phase ?? "")) ? false : FOLLOW_INTERVAL_MS,
  });
  const phase = String(q.data?.status?.phase ?? "");
  const link = <Link to={props.page}>{name}</Link>;
  return (
    <div className="progress" role="status" aria-live="polite">
      {q.error && !q.data ? (
        <p className="error">{describeReadError(q.error, `${noun.toLowerCase()} ${name}`)}</p>
      ) : phase === "Ready" ? (
        <p>
          {noun} {link} is ready.
        </p>
      ) : phase === "Failed" ? (
        <p>
          {noun} {link} failed: {q.data && <PhaseReason instance={q.data} />}. It was created and stays: fix the cause,
          or delete it.
        </p>
      ) : (
        <p>
          Created {noun.toLowerCase()} {link}; waiting until it is ready, now{" "}
          {q.data ? <InstancePhase instance={q.data} /> : "reading it"}. You may leave this page: the platform carries
          on, and the {noun.toLowerCase()}'s page shows how it goes.
        </p>
      )}
    </div>
  );
}
