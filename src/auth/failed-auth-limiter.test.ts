import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../api/errors.js";
import { FailedAuthLimiter } from "./failed-auth-limiter.js";

function statusOf(fn: () => void): number | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    assert.ok(err instanceof ApiError);
    return err.status.code;
  }
}

describe("FailedAuthLimiter", () => {
  it("blocks an address past its failures until the window ends", () => {
    let now = 0;
    const limiter = new FailedAuthLimiter(2, 60_000, () => now);
    limiter.fail("10.0.0.1");
    assert.equal(limiter.isBlocked("10.0.0.1"), false);
    limiter.fail("10.0.0.1");
    assert.equal(
      statusOf(() => limiter.check("10.0.0.1")),
      429,
    );
    assert.equal(limiter.isBlocked("10.0.0.2"), false, "another address is not blocked");
    now = 60_000;
    assert.equal(limiter.isBlocked("10.0.0.1"), false);
  });

  it("exempts a key that authenticated from the address, not one seen elsewhere or never", () => {
    const limiter = new FailedAuthLimiter(1);
    limiter.succeed("10.0.0.1", "good");
    limiter.succeed("10.0.0.2", "elsewhere");
    limiter.fail("10.0.0.1");
    assert.equal(
      statusOf(() => limiter.check("10.0.0.1", "good")),
      undefined,
    );
    assert.equal(
      statusOf(() => limiter.check("10.0.0.1", "elsewhere")),
      429,
    );
    assert.equal(
      statusOf(() => limiter.check("10.0.0.1", "guess")),
      429,
    );
    assert.equal(
      statusOf(() => limiter.check("10.0.0.1")),
      429,
    );
  });

  it("forgets a good key after a day, and the oldest past 64 keys per address", () => {
    let now = 0;
    const limiter = new FailedAuthLimiter(1, 60_000, () => now);
    limiter.succeed("a", "old");
    for (let i = 0; i < 64; i++) limiter.succeed("a", `k${i}`);
    limiter.fail("a");
    assert.equal(limiter.isBlocked("a", "old"), true, "the 65th key pushed the oldest out");
    assert.equal(limiter.isBlocked("a", "k63"), false);
    now = 24 * 3600_000;
    limiter.fail("a");
    assert.equal(limiter.isBlocked("a", "k63"), true, "a day later the key is not remembered");
  });
});
