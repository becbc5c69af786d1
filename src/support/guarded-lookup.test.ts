import assert from "node:assert/strict";
import type { LookupAddress } from "node:dns";
import { networkInterfaces } from "node:os";
import { describe, it } from "node:test";
import { EndpointNotAllowedError, guardedLookup, literalHostRefusal } from "./guarded-lookup.js";
import { localAddressKind } from "./local-addresses.js";

/** A resolver whose answer the test sets (a DNS record that changes). */
function fakeDns(answer: () => LookupAddress[]) {
  return (_host: string, _options: unknown, callback: (err: Error | null, addresses: LookupAddress[]) => void) =>
    callback(null, answer());
}

/** Calls the lookup as net.connect does, with or without `all`. */
function lookUp(
  lookup: ReturnType<typeof guardedLookup>,
  all: boolean,
): Promise<{ err: Error | null; address: unknown }> {
  return new Promise((resolve) =>
    lookup("api.example.com", { all }, (err: Error | null, address: unknown) => resolve({ err, address })),
  );
}

describe("local addresses", () => {
  it("names loopback, unspecified, link-local, metadata and the host's own addresses, in any spelling", () => {
    const cases: Array<[string, string]> = [
      ["127.0.0.1", "a loopback address"],
      ["127.8.9.10", "a loopback address"],
      ["::1", "a loopback address"],
      ["[::1]", "a loopback address"],
      ["::ffff:127.0.0.1", "a loopback address"],
      ["0.0.0.0", "an unspecified address"],
      ["::", "an unspecified address"],
      ["169.254.169.254", "a link-local address"],
      ["fe80::1", "a link-local address"],
      ["fd00:ec2::254", "a cloud metadata address"],
      ["100.100.100.200", "a cloud metadata address"],
    ];
    for (const [address, kind] of cases) assert.equal(localAddressKind(address), kind, address);
    for (const addrs of Object.values(networkInterfaces())) {
      for (const a of addrs ?? []) assert.ok(localAddressKind(a.address), `own address ${a.address}`);
    }
  });

  it("leaves other addresses and host names alone", () => {
    for (const other of ["203.0.113.7", "10.96.0.1", "2001:db8::1", "vc.example.com", "localhost"]) {
      assert.equal(localAddressKind(other), undefined, other);
    }
    assert.equal(literalHostRefusal(new URL("https://203.0.113.7:6443")), undefined);
    assert.ok(literalHostRefusal(new URL("https://127.1:6443")) instanceof EndpointNotAllowedError);
  });
});

describe("guardedLookup", () => {
  it("answers as dns.lookup does for a name with public addresses, one or all", async () => {
    const lookup = guardedLookup(fakeDns(() => [{ address: "203.0.113.7", family: 4 }]));
    assert.deepEqual(await lookUp(lookup, false), { err: null, address: "203.0.113.7" });
    assert.deepEqual(await lookUp(lookup, true), { err: null, address: [{ address: "203.0.113.7", family: 4 }] });
  });

  it("refuses the connection once the same name resolves to loopback (checked at each connection)", async () => {
    let answer: LookupAddress[] = [{ address: "203.0.113.7", family: 4 }];
    const lookup = guardedLookup(fakeDns(() => answer));
    assert.equal((await lookUp(lookup, false)).err, null);
    answer = [
      { address: "203.0.113.7", family: 4 },
      { address: "::1", family: 6 },
    ];
    const { err } = await lookUp(lookup, true);
    assert.ok(err instanceof EndpointNotAllowedError);
    assert.match(err.message, /^api\.example\.com resolves to a loopback address: .*--allow-local-endpoints/);
    assert.ok(!err.message.includes("::1"), "the resolved address is not shown");
  });

  it("passes resolver errors on", async () => {
    const lookup = guardedLookup((_h, _o, callback) =>
      callback(Object.assign(new Error("nope"), { code: "ENOTFOUND" }), []),
    );
    const { err } = await lookUp(lookup, false);
    assert.equal((err as NodeJS.ErrnoException).code, "ENOTFOUND");
  });
});
