import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Flag, FrameReader, FrameType, frameOf, H2ProtocolError, unpadded } from "./frames.js";

interface Seen {
  type: number;
  flags: number;
  id: number;
  payload: string;
}

function reader(maxFrame?: number) {
  const seen: Seen[] = [];
  const r = new FrameReader(
    (type, flags, id, payload) => seen.push({ type, flags, id, payload: payload.toString() }),
    maxFrame,
  );
  return { r, seen };
}

describe("HTTP/2 frames", () => {
  const wire = Buffer.concat([
    frameOf(FrameType.HEADERS, Flag.END_HEADERS, 1, Buffer.from("head")),
    frameOf(FrameType.DATA, 0, 1, Buffer.from("hello")),
    frameOf(FrameType.PING, Flag.ACK, 0, Buffer.from("12345678")),
    frameOf(FrameType.DATA, Flag.END_STREAM, 3, Buffer.alloc(0)),
  ]);
  const expected: Seen[] = [
    { type: FrameType.HEADERS, flags: Flag.END_HEADERS, id: 1, payload: "head" },
    { type: FrameType.DATA, flags: 0, id: 1, payload: "hello" },
    { type: FrameType.PING, flags: Flag.ACK, id: 0, payload: "12345678" },
    { type: FrameType.DATA, flags: Flag.END_STREAM, id: 3, payload: "" },
  ];

  test("frames are cut out of chunks however the socket splits them", () => {
    for (let cut = 0; cut <= wire.length; cut++) {
      const { r, seen } = reader();
      r.push(wire.subarray(0, cut));
      r.push(wire.subarray(cut));
      assert.deepEqual(seen, expected, `cut at ${cut}`);
    }
    const { r, seen } = reader();
    for (const byte of wire) r.push(Buffer.from([byte]));
    assert.deepEqual(seen, expected, "one byte at a time");
  });

  test("the reserved bit of the stream id is ignored", () => {
    const frame = frameOf(FrameType.DATA, 0, 5, Buffer.from("x"));
    frame[5]! |= 0x80;
    const { r, seen } = reader();
    r.push(frame);
    assert.equal(seen[0]!.id, 5);
  });

  test("a frame over the announced maximum size is a connection error", () => {
    const { r } = reader(16_384);
    const header = frameOf(FrameType.DATA, 0, 1, Buffer.alloc(16_385)).subarray(0, 9);
    assert.throws(() => r.push(header), H2ProtocolError);
  });

  test("padding and priority fields are taken off DATA and HEADERS", () => {
    const padded = Buffer.concat([Buffer.from([3]), Buffer.from("body"), Buffer.alloc(3)]);
    assert.equal(unpadded(FrameType.DATA, Flag.PADDED, padded).toString(), "body");
    const withPriority = Buffer.concat([Buffer.from([2]), Buffer.alloc(5), Buffer.from("block"), Buffer.alloc(2)]);
    assert.equal(unpadded(FrameType.HEADERS, Flag.PADDED | Flag.PRIORITY, withPriority).toString(), "block");
    assert.equal(
      unpadded(FrameType.HEADERS, Flag.PRIORITY, Buffer.concat([Buffer.alloc(5), Buffer.from("b")])).toString(),
      "b",
    );
    assert.throws(() => unpadded(FrameType.DATA, Flag.PADDED, Buffer.from([9, 1, 2])), H2ProtocolError);
    assert.throws(() => unpadded(FrameType.DATA, Flag.PADDED, Buffer.alloc(0)), H2ProtocolError);
  });
});
