import { type MouseEvent, type ReactNode, useEffect, useState } from "react";

/** Client routes live under /console; the server answers every one of them with index.html. */
export const BASE = "/console";

const listeners = new Set<() => void>();
window.addEventListener("popstate", () => {
  for (const l of listeners) l();
});

export function navigate(path: string): void {
  window.history.pushState(null, "", `${BASE}${path}`);
  for (const l of listeners) l();
  window.scrollTo(0, 0);
}

/** The path below /console, and the query string. */
export function useLocation(): { path: string; search: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((t) => t + 1);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : "/";
  return { path: path || "/", search: new URLSearchParams(window.location.search) };
}

export function Link(props: { to: string; children: ReactNode; className?: string; "aria-current"?: "page" }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.to);
  };
  return (
    <a href={`${BASE}${props.to}`} onClick={onClick} className={props.className} aria-current={props["aria-current"]}>
      {props.children}
    </a>
  );
}
