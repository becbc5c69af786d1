import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { setReachable, useReachable } from "../api/reachability";

/** How often the banner asks whether the server is back. */
const RETRY_MS = 2000;

/**
 * Shown while the server cannot be reached; it asks again on its own and, once the server
 * answers, goes away and reloads what the page shows.
 */
export function ConnectionBanner() {
  const reachable = useReachable();
  const queryClient = useQueryClient();
  useEffect(() => {
    if (reachable) return;
    const timer = setInterval(async () => {
      try {
        const res = await fetch("/console/api/config", { credentials: "same-origin" });
        if (!res.ok) return;
        setReachable(true);
        await queryClient.invalidateQueries();
      } catch {
        // Still unreachable: the next tick asks again.
      }
    }, RETRY_MS);
    return () => clearInterval(timer);
  }, [reachable, queryClient]);
  if (reachable) return null;
  return (
    <div role="alert" className="banner">
      The server cannot be reached. This page tries again every few seconds and carries on by itself when it answers;
      changes you make meanwhile are not saved.
    </div>
  );
}
