import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { auditSourceIPs } from "./source-ips.js";

const PEER = "10.0.0.5";

describe("audit sourceIPs (kube-apiserver's order)", () => {
  it("lists every X-Forwarded-For entry, first to last, then the peer", () => {
    assert.deepEqual(auditSourceIPs({ "x-forwarded-for": "1.1.1.1, 203.0.113.9" }, PEER), [
      "1.1.1.1",
      "203.0.113.9",
      PEER,
    ]);
    // Node joins repeated header lines: each line's entries are kept, in order.
    assert.deepEqual(auditSourceIPs({ "x-forwarded-for": "198.51.100.1, 198.51.100.2" }, PEER), [
      "198.51.100.1",
      "198.51.100.2",
      PEER,
    ]);
  });

  it("without headers, only the peer; with no valid address at all, none", () => {
    assert.deepEqual(auditSourceIPs({}, PEER), [PEER]);
    assert.deepEqual(auditSourceIPs(undefined, "::1"), ["::1"]);
    assert.deepEqual(auditSourceIPs({ "x-forwarded-for": "unknown" }, undefined), []);
  });

  it("skips entries that are not addresses (names, ports, garbage)", () => {
    const headers = { "x-forwarded-for": "client.example, 203.0.113.9:443, , 2001:db8::7, <script>", "x-real-ip": "x" };
    assert.deepEqual(auditSourceIPs(headers, PEER), ["2001:db8::7", PEER]);
  });

  it("adds X-Real-Ip after them unless it is listed already", () => {
    assert.deepEqual(auditSourceIPs({ "x-real-ip": "203.0.113.9" }, PEER), ["203.0.113.9", PEER]);
    assert.deepEqual(auditSourceIPs({ "x-forwarded-for": "203.0.113.9", "x-real-ip": " 198.51.100.7 " }, PEER), [
      "203.0.113.9",
      "198.51.100.7",
      PEER,
    ]);
    assert.deepEqual(
      auditSourceIPs({ "x-forwarded-for": "2001:DB8::7, 203.0.113.9", "x-real-ip": "2001:db8:0::7" }, PEER),
      ["2001:DB8::7", "203.0.113.9", PEER],
      "the same address written another way is not listed twice",
    );
  });

  it("does not repeat the peer when it is the last address listed already", () => {
    assert.deepEqual(auditSourceIPs({ "x-forwarded-for": `203.0.113.9, ${PEER}` }, PEER), ["203.0.113.9", PEER]);
    assert.deepEqual(auditSourceIPs({ "x-real-ip": "::1" }, "0:0:0:0:0:0:0:1"), ["::1"]);
    // Listed earlier, not last: the peer is still added at the end.
    assert.deepEqual(auditSourceIPs({ "x-forwarded-for": `${PEER}, 203.0.113.9` }, PEER), [PEER, "203.0.113.9", PEER]);
  });
});
