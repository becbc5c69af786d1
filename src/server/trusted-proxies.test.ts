import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { describe, it } from "node:test";
import { NO_TRUSTED_PROXIES, TrustedProxies } from "./trusted-proxies.js";

/** A request as the server sees it: the socket's peer and, maybe, X-Forwarded-For. */
function from(peer: string, forwardedFor?: string): IncomingMessage {
  const headers = forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor };
  return { socket: { remoteAddress: peer }, headers } as unknown as IncomingMessage;
}

const LB = "10.0.0.5";
const proxies = new TrustedProxies(["10.0.0.0/8", "fd00::/8"]);

describe("trusted proxies (--trusted-proxies)", () => {
  it("by default X-Forwarded-For is never read: the client is the socket's peer", () => {
    for (const none of [NO_TRUSTED_PROXIES, new TrustedProxies([]), new TrustedProxies([" ", ""])]) {
      assert.equal(none.trust, undefined);
      assert.equal(none.clientAddress(from(LB, "203.0.113.7")), LB);
    }
  });

  it("refuses a header from a peer that is not trusted, however it is written", () => {
    for (const header of ["203.0.113.7", "10.0.0.9", "203.0.113.7, 10.0.0.9", "garbage"]) {
      const spoofed = from("198.51.100.20", header);
      assert.equal(proxies.clientAddress(spoofed), "198.51.100.20", header);
    }
  });

  it("honours the header from a trusted peer: the rightmost hop that is not trusted is the client", () => {
    assert.equal(proxies.clientAddress(from(LB, "203.0.113.7")), "203.0.113.7");
    // The client wrote a header of its own; the load balancer appended the address it saw.
    const spoofing = from(LB, "1.1.1.1, 203.0.113.7");
    assert.equal(proxies.clientAddress(spoofing), "203.0.113.7");
    // Two trusted proxies in a row.
    const chained = from(LB, "203.0.113.7, 10.1.2.3");
    assert.equal(proxies.clientAddress(chained), "203.0.113.7");
    // Only proxies: the farthest of them is the client.
    assert.equal(proxies.clientAddress(from(LB, "10.9.9.9")), "10.9.9.9");
    // No header: the proxy itself.
    assert.equal(proxies.clientAddress(from(LB)), LB);
  });

  it("matches IPv4-mapped peers (a dual-stack socket) and IPv6 ranges", () => {
    assert.equal(proxies.clientAddress(from(`::ffff:${LB}`, "203.0.113.7")), "203.0.113.7");
    assert.equal(proxies.clientAddress(from("fd00::1", "2001:db8::7")), "2001:db8::7");
    assert.equal(proxies.clientAddress(from("2001:db8::1", "203.0.113.7")), "2001:db8::1");
    const single = new TrustedProxies(["127.0.0.1"]);
    assert.equal(single.clientAddress(from("127.0.0.1", "203.0.113.7")), "203.0.113.7");
    assert.equal(single.clientAddress(from("127.0.0.2", "203.0.113.7")), "127.0.0.2");
  });

  it("a range that does not parse stops the start with a message naming it", () => {
    for (const bad of ["10.0.0.0/33", "example.com", "10.0.0.0/x", "fd00::/129"]) {
      assert.throws(
        () => new TrustedProxies(["10.0.0.0/8", bad]),
        (err: Error) => {
          assert.match(err.message, /^--trusted-proxies: /);
          assert.ok(err.message.includes(`"${bad}"`), err.message);
          return true;
        },
      );
    }
  });
});
