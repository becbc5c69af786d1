import { ApiError, describeError } from "./client";

/**
 * A failed read said as what it means to the reader, never as an empty answer: `what` names what
 * was asked for ("the spaces of this project"), so a 403 reads "You may not see the spaces of this
 * project" rather than a list that looks empty.
 */
export function describeReadError(err: unknown, what: string): string {
  if (err instanceof ApiError && err.code === 403) return `You may not see ${what}: ${err.message}`;
  return `Could not read ${what}: ${describeError(err)}`;
}
