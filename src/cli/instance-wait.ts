import type { ApiClient, Json } from "./api-client.js";
import { CliError } from "./errors.js";

/** How often the phase is read again while waiting: often enough to feel prompt, rare enough to cost the server nothing. */
const POLL_INTERVAL_MS = 1000;

/** How a kind's phases end the wait. */
export interface WaitRules {
  /**
   * Whether a `Failed` phase ends the wait (exit 1 with its reason and message): true for a kind
   * whose Failed means the platform cannot fix it by trying again (a space); false for one whose
   * controller may still repair it (a virtual cluster), where Failed is shown and waited through.
   */
  failedEndsWait: boolean;
}

/** What one look at the instance says, as the progress line shows it. */
export function progressLine(what: string, obj: Json): string {
  const status = obj?.status ?? {};
  const phase = typeof status.phase === "string" && status.phase ? status.phase : "no phase yet";
  const why = [status.reason, status.message].filter((s) => typeof s === "string" && s).join(": ");
  return `${what}: ${phase}${why ? ` (${why})` : ""}`;
}

/**
 * Reads the object at `path` until its `status.phase` is Ready, printing a progress line on
 * stderr each time it changes (stdout stays for the result). A Failed phase ends the wait with
 * its reason and message when `rules` say so, and is otherwise shown and waited through. Gives
 * up after `timeoutSeconds` with the last line in the error. The object stays in every case.
 */
export async function waitForReady(
  client: ApiClient,
  path: string,
  what: string,
  timeoutSeconds: number,
  rules: WaitRules,
) {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let last = "";
  for (;;) {
    const obj = await client.get(path);
    const line = progressLine(what, obj);
    if (line !== last) process.stderr.write(`${line}\n`);
    last = line;
    if (obj?.status?.phase === "Ready") return obj;
    if (rules.failedEndsWait && obj?.status?.phase === "Failed") {
      throw new CliError(`${line}. It was created and stays: fix the cause, or delete it`);
    }
    if (Date.now() >= deadline) {
      throw new CliError(
        `gave up waiting after ${timeoutSeconds}s, the last phase seen: ${line}. It was created and stays`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_INTERVAL_MS, Math.max(0, deadline - Date.now()))));
  }
}
