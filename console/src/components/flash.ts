import { useSyncExternalStore } from "react";
import { navigate } from "../router";

/** A confirmation ("Saved.", "Deleted.") shown on the page the user lands on, and only there. */
interface Flash {
  message: string;
  path: string;
}

let current: Flash | undefined;
const listeners = new Set<() => void>();

/** Goes to `path` and says `message` there. */
export function navigateWithFlash(path: string, message: string): void {
  current = { message, path };
  for (const l of listeners) l();
  navigate(path);
}

/** The confirmation meant for `path`, if any. */
export function useFlash(path: string): string | undefined {
  const flash = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
  return flash && flash.path === path ? flash.message : undefined;
}
