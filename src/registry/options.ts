/** Options of the registry's verbs, already parsed from query strings and bodies by the HTTP layer. */

export type FieldValidation = "Strict" | "Warn" | "Ignore";

export interface WriteOptions {
  dryRun: boolean;
  /** The manager recorded in managedFields (fieldManager, or the User-Agent's product token). */
  fieldManager: string;
  fieldValidation: FieldValidation;
  /** Fields the decoder found twice in the body (reported per fieldValidation). */
  duplicateFields?: string[];
  /** Whether the client named the field manager (server-side apply requires it). */
  fieldManagerGiven?: boolean;
  /** Server-side apply: take ownership of conflicting fields. */
  force?: boolean;
  /** Set by server-side apply, which computes managedFields itself: the store records no Update entry. */
  managedFieldsPrepared?: boolean;
  /**
   * The body is a request body just decoded (server/body.ts, which checked its depth), used for
   * nothing else: a create checks and changes it in place instead of copying it first.
   */
  bodyOwned?: boolean;
}

/** A GET of one object: kube's GetOptions (resourceVersion unset: most recent; "0": any; N: not older than N). */
export interface GetOptions {
  resourceVersion?: string;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** Server setting, not a query parameter: how long to wait for a resourceVersion ahead of the store. */
  freshnessWaitMs?: number;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  allowWatchBookmarks: boolean;
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
  /** Server setting, not a query parameter: how long to wait for a resourceVersion ahead of the store. */
  freshnessWaitMs?: number;
}

export type PropagationPolicy = "Orphan" | "Background" | "Foreground";

export interface DeleteOptions {
  dryRun: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: PropagationPolicy;
  preconditions?: { uid?: string; resourceVersion?: string };
  /**
   * KEP-3926: remove an object whose stored value does not decode without decoding it
   * (unsafe-delete.ts). Set only alone (server/unsafe-delete-option.ts).
   */
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

export type PatchType = "json" | "merge" | "apply";

export function defaultWriteOptions(fieldManager = "platform"): WriteOptions {
  return { dryRun: false, fieldManager, fieldValidation: "Ignore" };
}
