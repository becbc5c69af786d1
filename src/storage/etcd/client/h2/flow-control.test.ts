import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FlowControl } from "./flow-control.js";
import { ErrorCode, FRAME_HEADER, FrameType, H2ProtocolError } from "./frames.js";
import { H2Stream } from "./stream.js";

const owner = { write() {}, reset() {} };
const handlers = { onHeaders() {}, onData() {}, onClose() {} };

function setup(streamWindow: number, connectionWindow: number) {
  const updates: [number, number][] = [];
  const flow = new FlowControl(streamWindow, connectionWindow, (b) => {
    if (b[3] === FrameType.WINDOW_UPDATE) updates.push([b.readUInt32BE(5), b.readUInt32BE(FRAME_HEADER)]);
  });
  const stream = new H2Stream(owner, Buffer.alloc(0), handlers);
  stream.id = 1;
  return { flow, stream, updates };
}

const flowControlError = (which: string) => (err: unknown) =>
  err instanceof H2ProtocolError && err.code === ErrorCode.FLOW_CONTROL_ERROR && err.message.includes(which);

describe("receive flow control of the etcd client's HTTP/2 connection", () => {
  test("what arrives is given back every half window, and the window granted is never exceeded", () => {
    const { flow, stream, updates } = setup(1 << 20, 1 << 20);
    for (let i = 0; i < 200; i++) flow.received(stream, 16_384);
    const given = (id: number) => updates.filter(([s]) => s === id).reduce((n, [, inc]) => n + inc, 0);
    assert.ok(given(0) >= 200 * 16_384 - (1 << 19) && given(0) <= 200 * 16_384);
    assert.equal(given(0), given(1));
  });

  test("DATA beyond the connection window granted is FLOW_CONTROL_ERROR, also on streams no longer followed", () => {
    // 60,000 bytes: not half of the 131,072-byte connection window; 80,000 more overrun it.
    const { flow } = setup(1 << 20, 131_072);
    flow.received(undefined, 60_000);
    assert.throws(() => flow.received(undefined, 80_000), flowControlError("connection window granted (131072"));
  });

  test("the connection window granted is the default 65,535 bytes at least, as no SETTINGS lowers it", () => {
    const { flow } = setup(1 << 20, 1_000);
    flow.received(undefined, 65_535);
    const { flow: other } = setup(1 << 20, 1_000);
    assert.throws(() => other.received(undefined, 65_536), flowControlError("connection window granted (65535"));
  });

  test("DATA beyond the stream window granted is FLOW_CONTROL_ERROR", () => {
    const { flow, stream } = setup(20_000, 1 << 20);
    flow.received(stream, 9_000);
    assert.throws(() => flow.received(stream, 12_000), flowControlError("stream window granted (20000"));
  });
});
