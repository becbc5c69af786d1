import { StorageError } from "../storage/errors.js";
import type { Storage, WatchCallbacks, Watcher } from "../storage/interface.js";
import { storageWith } from "./storage-with.js";

/**
 * A real storage whose list() can be made to fail (as an etcd that went away does) and whose
 * watches a test can end with an error: for the informer's relist tests.
 */
export interface FlakyStorage {
  readonly storage: Storage;
  /** While true, every list() is refused with StorageError "Unavailable". */
  failing: boolean;
  /** list() calls so far, refused ones included. */
  listAttempts: number;
  /**
   * Ends the newest watch, or the newest of `resource` (its prefix ends in `/<resource>/`), with
   * `err` (default: Compacted), as a storage does: closed, no event after it.
   */
  endWatch(err?: Error, resource?: string): void;
}

export function flakyStorage(inner: Storage): FlakyStorage {
  const watches: Array<{ prefix: string; watcher: Watcher; callbacks: WatchCallbacks }> = [];
  const flaky: FlakyStorage = {
    failing: false,
    listAttempts: 0,
    endWatch(err, resource) {
      const open = resource === undefined ? watches : watches.filter((w) => w.prefix.endsWith(`/${resource}/`));
      const newest = open[open.length - 1];
      if (!newest) throw new Error(`no watch${resource ? ` of ${resource}` : ""} to end`);
      newest.watcher.close();
      newest.callbacks.onError(
        err ?? new StorageError("Compacted", newest.prefix, "required revision has been compacted"),
      );
    },
    storage: storageWith(inner, {
      list: (...args: Parameters<Storage["list"]>) => {
        flaky.listAttempts++;
        if (flaky.failing) return Promise.reject(new StorageError("Unavailable", args[0], "store down (test)"));
        return inner.list(...args);
      },
      watch: (...args: Parameters<Storage["watch"]>) => {
        const watcher = inner.watch(...args);
        watches.push({ prefix: args[0], watcher, callbacks: args[2] });
        return watcher;
      },
    }),
  };
  return flaky;
}
