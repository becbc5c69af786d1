import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "../../api/object.js";
import { statusOf } from "../../api/object.js";
import type { SpaceInstanceStatus } from "../../kinds/space-instance/space-instance.js";
import { withTransitionTime } from "../condition-times.js";

type Condition = NonNullable<SpaceInstanceStatus["conditions"]>[number];

/** What a pass decided about a space, before it is written to status. */
export interface SpaceReport {
  phase: "Pending" | "Ready" | "Failed" | "Deleting";
  reason?: string;
  message?: string;
  namespaceUID?: string;
  objects?: SpaceInstanceStatus["objects"];
}

/**
 * The status a report gives: phase, reason and message, and one `Ready` condition carrying the
 * same reason and the cluster's own message, whose lastTransitionTime moves only when its status
 * does. What the report does not know (the namespace's UID, the objects, while the cluster is
 * unreachable) is kept from before. Undefined when nothing would change.
 */
export function nextStatus(space: KubeObject, report: SpaceReport, now: Date): SpaceInstanceStatus | undefined {
  const before = statusOf<SpaceInstanceStatus>(space);
  const ready = report.phase === "Ready" ? "True" : "False";
  const condition: Condition = withTransitionTime(
    {
      type: "Ready",
      status: ready,
      ...(report.reason ? { reason: report.reason } : {}),
      ...(report.message ? { message: report.message } : {}),
    },
    before.conditions,
    now.toISOString(),
  );
  const next: SpaceInstanceStatus = {
    phase: report.phase,
    ...(report.reason ? { reason: report.reason } : {}),
    ...(report.message ? { message: report.message } : {}),
    conditions: [condition],
  };
  const uid = report.namespaceUID ?? before.namespaceUID;
  if (uid) next.namespaceUID = uid;
  // How a space moved before its UID was recorded knows its namespace (namespace-claim.ts), until then.
  else {
    if (before.movedFromProjectUID) next.movedFromProjectUID = before.movedFromProjectUID;
    if (before.movedFromProject) next.movedFromProject = before.movedFromProject;
  }
  // Written once, by the import (or carried by a move); no pass of the controller changes it.
  if (before.imported) next.imported = true;
  const objects = report.objects ?? before.objects;
  if (objects && objects.length > 0) next.objects = objects;
  return isDeepStrictEqual(next, before) ? undefined : next;
}
