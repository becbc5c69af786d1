import { useSyncExternalStore } from "react";

/** Whether the last request reached the server (any answer counts; only a failed connection does not). */
let reachable = true;
const listeners = new Set<() => void>();

export function setReachable(value: boolean): void {
  if (value === reachable) return;
  reachable = value;
  for (const l of listeners) l();
}

export function useReachable(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => reachable,
  );
}

/** Thrown when no answer came: the network, a proxy, or the server is down. */
export class UnreachableError extends Error {
  constructor() {
    super("The server cannot be reached. The page tries again by itself.");
  }
}
