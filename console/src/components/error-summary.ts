import { ApiError, describeError } from "../api/client";

/**
 * The line above a form for a refused save: when every refused value is told below (beside its
 * field, or in the form's list), only how many (each error once); otherwise the server's message.
 */
export function errorSummary(error: unknown, fieldsShown: readonly string[]): string {
  const fields = error instanceof ApiError ? [...error.fieldErrors().keys()] : [];
  if (fields.length === 0 || !fields.every((f) => fieldsShown.includes(f))) return describeError(error);
  return `Not saved: ${fields.length === 1 ? "one value needs" : `${fields.length} values need`} a change (see below).`;
}
