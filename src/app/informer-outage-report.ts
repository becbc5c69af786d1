import type { Logger } from "pino";
import type { OnInformerOutage } from "../registry/informer-relist.js";

/**
 * What the server does when one of its informers cannot list the store again after its watch
 * ended (registry/informer-relist.ts): one error line when the outage starts (the informer retries
 * by itself, with backoff, and its copy stays at `revision` meanwhile) and one line when it ends.
 * Not one per retry: a store down for an hour would otherwise fill the log.
 */
export function reportInformerOutage(log: Pick<Logger, "error" | "warn">): OnInformerOutage {
  return (outage) => {
    const fields = { resource: outage.resource, revision: outage.revision, failedAttempts: outage.failedAttempts };
    if (outage.phase === "failing")
      log.error(
        { ...fields, error: outage.error },
        `the ${outage.resource} informer cannot list the store after its watch ended: retrying with backoff; its copy stays at revision ${outage.revision}`,
      );
    else
      log.warn(
        fields,
        `the ${outage.resource} informer listed the store again after ${outage.failedAttempts} failed attempts and watches it anew`,
      );
  };
}
