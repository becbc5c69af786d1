import assert from "node:assert/strict";
import type { Socket } from "node:net";
import { afterEach, beforeEach, describe, mock, test } from "node:test";
import { FLUSH_AT_BYTES, SocketOutput } from "./output.js";

/** A socket that keeps what is written to it, one entry per write. */
function recordingSocket(): { socket: Socket; writes: string[] } {
  const writes: string[] = [];
  const socket = {
    write: (b: Buffer) => writes.push(b.toString()),
    cork() {},
    uncork() {},
  } as unknown as Socket;
  return { socket, writes };
}

/** The end of this turn of the event loop (after its poll phase's callbacks, when immediates run). */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

describe("SocketOutput", () => {
  beforeEach(() => mock.timers.enable({ apis: ["setTimeout"] }));
  afterEach(() => mock.timers.reset());

  test("frames emitted in one tick go out in one write", async () => {
    const { socket, writes } = recordingSocket();
    const out = new SocketOutput(socket);
    out.emit(Buffer.from("a"));
    out.emit(Buffer.from("b"));
    await tick();
    assert.deepEqual(writes, ["ab"]);
  });

  test("frames emitted in later ticks of the same turn of the loop (other requests' callbacks) go out with them", async () => {
    const { socket, writes } = recordingSocket();
    const out = new SocketOutput(socket);
    out.emit(Buffer.from("a"));
    await nextTick();
    out.emit(Buffer.from("b"));
    await nextTick();
    assert.deepEqual(writes, [], "nothing written before the turn ends");
    out.emit(Buffer.from("c"));
    await tick();
    assert.deepEqual(writes, ["abc"]);
  });

  test(`a queue of ${FLUSH_AT_BYTES} bytes or more is written at once`, async () => {
    const { socket, writes } = recordingSocket();
    const out = new SocketOutput(socket);
    out.emit(Buffer.alloc(FLUSH_AT_BYTES - 1, "x"));
    assert.equal(writes.length, 0);
    out.emit(Buffer.from("y"));
    assert.equal(writes.join("").length, FLUSH_AT_BYTES, "written without waiting for the turn to end");
    const written = writes.length;
    out.emit(Buffer.from("z"));
    assert.equal(writes.length, written, "what follows waits for the end of the turn again");
    await tick();
    assert.deepEqual(writes.slice(written), ["z"]);
  });

  test("a frame that may wait rides on the next write", async () => {
    const { socket, writes } = recordingSocket();
    const out = new SocketOutput(socket);
    out.emitLater(Buffer.from("ack"), 20);
    await tick();
    assert.deepEqual(writes, [], "not written on its own while it may wait");
    mock.timers.tick(10);
    out.emit(Buffer.from("request"));
    await tick();
    assert.deepEqual(writes, ["ackrequest"]);
    mock.timers.tick(100);
    await tick();
    assert.deepEqual(writes, ["ackrequest"], "its timer was cleared: it is not written twice");
  });

  test("with a write due in this tick it goes with it at once", async () => {
    const { socket, writes } = recordingSocket();
    const out = new SocketOutput(socket);
    out.emit(Buffer.from("request"));
    out.emitLater(Buffer.from("ack"), 20);
    await tick();
    assert.deepEqual(writes, ["requestack"]);
  });

  test("with nothing else to write it goes alone once its delay is over", async () => {
    const { socket, writes } = recordingSocket();
    const out = new SocketOutput(socket);
    out.emitLater(Buffer.from("ack1"), 20);
    out.emitLater(Buffer.from("ack2"), 20);
    mock.timers.tick(19);
    await tick();
    assert.deepEqual(writes, []);
    mock.timers.tick(1);
    assert.deepEqual(writes, ["ack1ack2"]);
  });

  test("flush (before the socket ends) writes the waiting frames too; stop drops them", async () => {
    const first = recordingSocket();
    const a = new SocketOutput(first.socket);
    a.emitLater(Buffer.from("ack"), 20);
    a.flush();
    assert.deepEqual(first.writes, ["ack"]);
    const second = recordingSocket();
    const b = new SocketOutput(second.socket);
    b.emitLater(Buffer.from("ack"), 20);
    b.stop();
    mock.timers.tick(100);
    await tick();
    assert.deepEqual(second.writes, []);
  });
});
