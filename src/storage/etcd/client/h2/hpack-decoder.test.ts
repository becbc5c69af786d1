import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HeaderBlockDecoder, HpackError } from "./hpack-decoder.js";

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ""), "hex");

// RFC 7541 Appendix C: the same three requests without Huffman coding (C.3) and with it (C.4),
// each block referring to the dynamic table entries the previous ones added.
const REQUESTS = [
  { ":method": "GET", ":scheme": "http", ":path": "/", ":authority": "www.example.com" },
  { ":method": "GET", ":scheme": "http", ":path": "/", ":authority": "www.example.com", "cache-control": "no-cache" },
  {
    ":method": "GET",
    ":scheme": "https",
    ":path": "/index.html",
    ":authority": "www.example.com",
    "custom-key": "custom-value",
  },
];
const C3 = [
  "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
  "8286 84be 5808 6e6f 2d63 6163 6865",
  "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
];
const C4 = [
  "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
  "8286 84be 5886 a8eb 1064 9cbf",
  "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
];

// C.6: responses with Huffman coding and a 256-byte table, where later entries evict earlier ones.
const DATE1 = "Mon, 21 Oct 2013 20:13:21 GMT";
const DATE2 = "Mon, 21 Oct 2013 20:13:22 GMT";
const LOCATION = "https://www.example.com";
const COOKIE = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1";
const C6 = [
  "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 " +
    "2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
  "4883 640e ffc1 c0bf",
  "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab " +
    "77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f " +
    "9587 3160 65c0 03ed 4ee5 b106 3d50 07",
];
const RESPONSES = [
  { ":status": "302", "cache-control": "private", date: DATE1, location: LOCATION },
  { ":status": "307", "cache-control": "private", date: DATE1, location: LOCATION },
  {
    ":status": "200",
    "cache-control": "private",
    date: DATE2,
    location: LOCATION,
    "content-encoding": "gzip",
    "set-cookie": COOKIE,
  },
];

describe("HPACK decoding of the header blocks etcd sends", () => {
  for (const [name, blocks] of [
    ["C.3 (plain literals)", C3],
    ["C.4 (Huffman)", C4],
  ] as const) {
    test(`RFC 7541 ${name}: three requests sharing the dynamic table`, () => {
      const decoder = new HeaderBlockDecoder();
      for (const [i, block] of blocks.entries()) assert.deepEqual(decoder.decode(hex(block)), REQUESTS[i]);
    });
  }

  test("RFC 7541 C.6: responses with Huffman coding whose entries evict older ones from a 256-byte table", () => {
    const decoder = new HeaderBlockDecoder(256);
    for (const [i, block] of C6.entries()) assert.deepEqual(decoder.decode(hex(block)), RESPONSES[i]);
    // After C.6.3 the table holds set-cookie, content-encoding, date (DATE2): index 62 is the newest.
    assert.deepEqual(decoder.decode(hex("be bf c0")), {
      "set-cookie": COOKIE,
      "content-encoding": "gzip",
      date: DATE2,
    });
    assert.throws(() => decoder.decode(hex("c1")), HpackError, "the evicted entries are gone");
  });

  test("a never-indexed field is decoded and added to no table (C.2.3)", () => {
    const decoder = new HeaderBlockDecoder();
    assert.deepEqual(decoder.decode(hex("1008 7061 7373 776f 7264 0673 6563 7265 74")), { password: "secret" });
    assert.throws(() => decoder.decode(hex("be")), HpackError);
  });

  test("a dynamic table size update above the limit, an index out of range and a cut block are refused", () => {
    for (const bad of ["3fe2 1f", "be", "80", "4005 6162", "4185 ff"]) {
      assert.throws(() => new HeaderBlockDecoder().decode(hex(bad)), HpackError, bad);
    }
    const decoder = new HeaderBlockDecoder();
    decoder.decode(hex(C3[0]!));
    // A size update to 0 empties the table.
    assert.deepEqual(decoder.decode(hex("20 82")), { ":method": "GET" });
    assert.throws(() => decoder.decode(hex("be")), HpackError);
  });

  test("size updates come only at the start of a block (several may), within the size announced", () => {
    const decoder = new HeaderBlockDecoder();
    decoder.decode(hex(C3[0]!));
    // To 0, then back to 4,096 (0x3f e1 1f), then a field: the entries before the first update are gone.
    assert.deepEqual(decoder.decode(hex("20 3fe11f 82")), { ":method": "GET" });
    assert.throws(() => decoder.decode(hex("be")), HpackError);
    assert.throws(() => new HeaderBlockDecoder().decode(hex("82 20")), /size update after a header field/);
    assert.throws(() => new HeaderBlockDecoder().decode(hex("3fe21f")), /size of 4097, above the 4096 allowed/);
    assert.throws(() => new HeaderBlockDecoder(256).decode(hex("3fe201")), /size of 257, above the 256 allowed/);
  });
});
