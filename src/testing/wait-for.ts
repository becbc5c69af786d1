import assert from "node:assert/strict";

/**
 * Reads until `check` holds, every 100 ms, at most `attempts` times: bounded, as a guard against
 * hanging, not a timing assertion. Fails naming `what` and the last value read.
 */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  check: (v: T) => boolean,
  attempts = 600,
): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < attempts; i++) {
    last = await read();
    if (check(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`${what} never came; last: ${JSON.stringify(last)}`);
}
