/**
 * The watch stream's hand-over: a stream the etcd client ends before openStream's promise hands
 * it over (the HTTP/2 connection ends streams while it reads frames, watch-stream.ts says when)
 * is cancelled and replaced by exactly one new stream, which resumes the watch where it was.
 * Driven by a client of the test's own, to put the end exactly there.
 */
import assert from "node:assert/strict";
import { afterEach, describe, mock, test } from "node:test";
import { encodeAs, WatchRequest, WatchResponse } from "../../testing/etcd-rpc-proto.js";
import { RecordedStream, settle, watchDelivering } from "../../testing/watch-stream-stand-in.js";
import { type BidiHandlers, CODE_UNAVAILABLE, EtcdRequestError, H2ErrorCode, transportReason } from "./client/index.js";
import { EtcdWatchStream, type WatchStreamKv } from "./watch-stream.js";

/** An etcd client whose first stream ends before it is handed over; the later ones stay open. */
class EndsFirstStreamEarly implements WatchStreamKv {
  readonly opened: RecordedStream[] = [];
  async openStream(_path: string, handlers: BidiHandlers): Promise<RecordedStream> {
    const stream = new RecordedStream(handlers);
    this.opened.push(stream);
    if (this.opened.length === 1)
      handlers.onEnd(
        new EtcdRequestError(transportReason(200, { rstCode: H2ErrorCode.REFUSED_STREAM }), CODE_UNAVAILABLE),
      );
    return stream;
  }
  forgetToken(): void {}
}

/** The start revision of the watch a stream created (its one WatchRequest). */
function startRevisionOf(stream: RecordedStream): number[] {
  return stream.written.map((m) => {
    const req = WatchRequest.toObject(WatchRequest.decode(m), { longs: Number }) as {
      create_request?: { start_revision?: number };
    };
    return req.create_request?.start_revision ?? -1;
  });
}

const putAt = (key: string, revision: number): Buffer => {
  const kv = {
    key: Buffer.from(key),
    value: Buffer.from("v"),
    create_revision: revision,
    mod_revision: revision,
    version: 1,
  };
  const message = { header: { revision }, watch_id: 0, events: [{ type: "PUT", kv }] };
  return encodeAs(WatchResponse, message);
};

describe("the etcd watch stream when a stream ends before it is handed over", () => {
  afterEach(() => mock.timers.reset());

  test("cancels it, opens exactly one new stream that resumes the watch, and delivers only from that one", async () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    const kv = new EndsFirstStreamEarly();
    const { watch, delivered } = watchDelivering(kv);
    watch.start();
    await settle();
    const [early] = kv.opened;
    assert.equal(kv.opened.length, 1);
    assert.equal(early!.cancels, 1, "the stream that ended is cancelled at the hand-over");
    assert.deepEqual(early!.written, [], "no watch is created on it");

    mock.timers.tick(2_000); // the longest first retry delay
    await settle();
    assert.equal(kv.opened.length, 2, "one retry");
    const resumed = kv.opened[1]!;
    assert.deepEqual(startRevisionOf(resumed), [11], "the watch resumes after revision 10");
    assert.equal(resumed.cancels, 0);

    early!.handlers.onMessage(putAt("/r/stale", 11));
    resumed.handlers.onMessage(putAt("/r/a", 11));
    assert.deepEqual(delivered, [[["/r/a"], 11]], "only the stream handed over delivers");
    assert.equal(watch.lastRevision, 11);

    mock.timers.tick(60_000);
    await settle();
    assert.equal(kv.opened.length, 2, "no second retry, no second stream");
    watch.close();
    assert.equal(resumed.cancels, 1);
  });

  test("closed meanwhile: cancels it and opens nothing more", async () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    const kv = new EndsFirstStreamEarly();
    const watch = new EtcdWatchStream(kv, "", 10, {
      onResponse: () => assert.fail("nothing delivered"),
      onCompacted: () => assert.fail("not compacted"),
      onWarning: () => {},
    });
    watch.start();
    watch.close();
    await settle();
    assert.equal(kv.opened[0]!.cancels, 1);
    mock.timers.tick(60_000);
    await settle();
    assert.equal(kv.opened.length, 1);
  });
});
