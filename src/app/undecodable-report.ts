import type { Logger } from "pino";
import { informerUndecodableObjects } from "../metrics/metrics.js";
import type { OnUndecodable } from "../registry/undecodable.js";

/**
 * What the server does when a shared informer skips a stored value that does not decode: one
 * JSON log line naming the object (resource, key, revision, reason; never the value, which may
 * hold secrets) and one more on `platform_informer_undecodable_objects_total`.
 */
export function reportUndecodable(log: Pick<Logger, "error">): OnUndecodable {
  return (report) => {
    informerUndecodableObjects.inc({ resource: report.resource });
    log.error(
      { resource: report.resource, key: report.key, revision: report.revision, reason: report.reason },
      `informer skipped ${report.key} at revision ${report.revision}: ${report.reason}`,
    );
  };
}
