import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SIGN_IN_LIMIT_DEFAULTS, SignInLimiter } from "./sign-in-limiter.js";

/** A limiter on a clock the test steps. */
function limiterAt(limits: Partial<typeof SIGN_IN_LIMIT_DEFAULTS>) {
  const clock = { t: 1_000_000 };
  const limiter = new SignInLimiter({ ...SIGN_IN_LIMIT_DEFAULTS, ...limits }, () => clock.t);
  return { clock, limiter };
}

function takeMany(limiter: SignInLimiter, address: string, n: number) {
  return Array.from({ length: n }, () => limiter.take(address));
}

describe("sign-in limiter", () => {
  it("an address gets its burst, then one sign-in per refill; another address is not affected", () => {
    const { clock, limiter } = limiterAt({ burstPerAddress: 3, perAddressPerMinute: 6, globalPerSecond: 100 });
    assert.deepEqual(takeMany(limiter, "10.0.0.1", 3), [undefined, undefined, undefined]);
    assert.deepEqual(limiter.take("10.0.0.1"), { scope: "address", retryAfterSeconds: 10 });
    assert.equal(limiter.take("10.0.0.2"), undefined);
    clock.t += 9_000;
    assert.deepEqual(limiter.take("10.0.0.1"), { scope: "address", retryAfterSeconds: 1 });
    clock.t += 1_000;
    assert.equal(limiter.take("10.0.0.1"), undefined);
    assert.equal(limiter.take("10.0.0.1")?.scope, "address");
    // A long pause refills the burst, never more.
    clock.t += 3_600_000;
    assert.deepEqual(
      takeMany(limiter, "10.0.0.1", 4).map((r) => r?.scope),
      [undefined, undefined, undefined, "address"],
    );
  });

  it("caps sign-ins per second across addresses; a refusal takes no token", () => {
    const { clock, limiter } = limiterAt({ burstPerAddress: 5, perAddressPerMinute: 1, globalPerSecond: 4 });
    const addresses = ["a", "b", "c", "d", "e", "f"];
    const results = addresses.map((a) => limiter.take(a));
    assert.deepEqual(results.slice(0, 4), [undefined, undefined, undefined, undefined]);
    assert.deepEqual(results[4], { scope: "global", retryAfterSeconds: 1 });
    assert.deepEqual(results[5], { scope: "global", retryAfterSeconds: 1 });
    clock.t += 250;
    assert.equal(limiter.take("e"), undefined);
    assert.equal(limiter.take("f")?.scope, "global");
    clock.t += 1_000;
    // "e" was refused once by the global cap and admitted once: it spent one token of five.
    assert.deepEqual(
      takeMany(limiter, "e", 4).map((r) => r?.scope),
      [undefined, undefined, undefined, undefined],
    );
    assert.equal(limiter.take("e")?.scope, "address");
  });

  it("remembers at most maxAddresses, forgetting the least recently seen", () => {
    const { limiter } = limiterAt({
      burstPerAddress: 1,
      perAddressPerMinute: 1,
      globalPerSecond: 1000,
      maxAddresses: 3,
    });
    for (const a of ["a", "b", "c"]) assert.equal(limiter.take(a), undefined);
    assert.equal(limiter.take("a")?.scope, "address");
    limiter.take("d");
    assert.equal(limiter.size, 3);
    // "b" was the least recently seen: forgotten, it starts afresh; "a" is still remembered.
    assert.equal(limiter.take("b"), undefined);
    assert.equal(limiter.take("a")?.scope, "address");
    for (let i = 0; i < 50; i++) limiter.take(`x${i}`);
    assert.equal(limiter.size, 3);
  });

  it("a clock that steps back refills nothing", () => {
    const { clock, limiter } = limiterAt({ burstPerAddress: 1, perAddressPerMinute: 60, globalPerSecond: 100 });
    assert.equal(limiter.take("a"), undefined);
    clock.t -= 60_000;
    assert.equal(limiter.take("a")?.scope, "address");
  });
});
