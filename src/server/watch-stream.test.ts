import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, test } from "node:test";
import { streamWatch, WatchStreams } from "./watch-stream.js";

describe("slow watchers", () => {
  test("a watch whose client does not read is closed with a 410 ERROR event", async () => {
    const written: Buffer[] = [];
    let ended = false;
    // A stand-in response without a socket of its own: the watch writes its lines through it.
    const res = Object.assign(new EventEmitter(), {
      writableLength: 0,
      writeHead() {},
      flushHeaders() {},
      write(chunk: Buffer) {
        written.push(chunk);
        // Nothing is ever drained: the client does not read.
        res.writableLength += chunk.length;
        return false;
      },
      end() {
        ended = true;
      },
    });
    const request = { raw: new EventEmitter() };
    const reply = { raw: res, hijack() {} };
    const streams = new WatchStreams();
    streams.maxBufferedBytes = 1000;
    let sink: { send(e: unknown): void } | undefined;
    await streamWatch(
      request as never,
      reply as never,
      { encoding: "json" } as never,
      undefined,
      async (s) => {
        sink = s;
        return { close() {} };
      },
      { rt: {} as never },
      streams,
    );
    for (let i = 0; i < 100 && !ended; i++) {
      sink!.send({ type: "ADDED", object: { metadata: { name: `o${i}`, pad: "x".repeat(100) } } });
      // Let queued frames reach the response between events, as separate writes would.
      await new Promise((r) => process.nextTick(r));
    }
    assert.equal(ended, true);
    const lines = Buffer.concat(written).toString().trim().split("\n");
    const last = JSON.parse(lines.at(-1)!);
    assert.equal(last.type, "ERROR");
    assert.equal(last.object.code, 410);
    assert.ok(lines.length < 20, "closed soon after the budget was exceeded");
  });
});
