import { errors } from "../api/errors.js";

/**
 * A list continuation token: the revision the first page was read at and the last key
 * returned, so every page of one list is read from the same snapshot (as kube-apiserver does).
 */
export interface ContinueToken {
  revision: number;
  /** The last key returned; the next page starts after it. */
  after: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: token.revision, start: token.after })).toString(
    "base64url",
  );
}

export function decodeContinue(value: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as {
      v?: unknown;
      rv?: unknown;
      start?: unknown;
    };
    if (
      parsed.v === "meta.k8s.io/v1" &&
      typeof parsed.rv === "number" &&
      Number.isSafeInteger(parsed.rv) &&
      parsed.rv > 0 &&
      typeof parsed.start === "string"
    ) {
      return { revision: parsed.rv, after: parsed.start };
    }
  } catch {
    // fall through to the error below
  }
  throw errors.badRequest(`invalid continue token: the continue parameter is not valid`);
}

export function continueTokenExpired(): Error {
  return errors.expired(
    "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
  );
}
