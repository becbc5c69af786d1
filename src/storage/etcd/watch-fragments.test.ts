/**
 * The watch stream asks etcd to split large responses (`fragment`) and hands on the parts of one
 * response as that one response: nothing of it before its last part, and nothing of the parts
 * of a stream lost before its last part (the next stream resumes before them). Driven by a
 * client of the test's own; message-limit-etcd.test.ts has a real etcd split a response.
 */
import assert from "node:assert/strict";
import { afterEach, describe, mock, test } from "node:test";
import { encodeAs, WatchRequest, WatchResponse } from "../../testing/etcd-rpc-proto.js";
import { RecordedStream, settle, watchDelivering } from "../../testing/watch-stream-stand-in.js";
import { type BidiHandlers, CODE_UNAVAILABLE, EtcdRequestError } from "./client/index.js";
import type { WatchStreamKv } from "./watch-stream.js";

const encode = (message: object): Buffer => encodeAs(WatchResponse, message);

const CREATED = encode({ created: true });
/** A response (or a part of one) with puts of `keys` at their revisions. */
const response = (puts: Array<[string, number]>, fragment: boolean): Buffer =>
  encode({
    header: { revision: Math.max(...puts.map(([, rev]) => rev)) },
    fragment,
    events: puts.map(([key, rev]) => ({
      type: "PUT",
      kv: { key: Buffer.from(key), value: Buffer.from("v"), create_revision: rev, mod_revision: rev, version: 1 },
    })),
  });

/** Streams that stay open until the test ends them. */
class OpenStreams implements WatchStreamKv {
  readonly opened: RecordedStream[] = [];
  async openStream(_path: string, handlers: BidiHandlers): Promise<RecordedStream> {
    const stream = new RecordedStream(handlers);
    this.opened.push(stream);
    return stream;
  }
  forgetToken(): void {}
}

function createRequestOf(stream: RecordedStream) {
  const req = WatchRequest.toObject(WatchRequest.decode(stream.written[0]!), { longs: Number }) as {
    create_request: { start_revision?: number; fragment?: boolean };
  };
  return req.create_request;
}

function watching() {
  const kv = new OpenStreams();
  return { kv, ...watchDelivering(kv) };
}

describe("the etcd watch stream and responses etcd splits", () => {
  afterEach(() => mock.timers.reset());

  test("asks for them, and hands the parts on as one response once the last came", async () => {
    const { kv, delivered, watch } = watching();
    try {
      watch.start();
      await settle();
      const stream = kv.opened[0]!;
      assert.equal(createRequestOf(stream).fragment, true);
      stream.handlers.onMessage(CREATED);
      stream.handlers.onMessage(
        response(
          [
            ["/r/a", 11],
            ["/x/elsewhere", 11],
          ],
          true,
        ),
      );
      stream.handlers.onMessage(response([["/r/b", 11]], true));
      assert.deepEqual(delivered, [], "nothing before the last part: revision 11 may go on in it");
      assert.equal(watch.lastRevision, 10);
      stream.handlers.onMessage(
        response(
          [
            ["/r/c", 11],
            ["/r/d", 12],
          ],
          false,
        ),
      );
      assert.deepEqual(delivered, [[["/r/a", "/r/b", "/r/c", "/r/d"], 12]]);
      assert.equal(watch.lastRevision, 12);
      stream.handlers.onMessage(response([["/r/e", 13]], false));
      assert.deepEqual(delivered[1], [["/r/e"], 13], "the next response stands alone");
    } finally {
      watch.close();
    }
  });

  test("a stream lost between parts: they are dropped, the next stream resumes before them", async () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    const { kv, delivered, watch } = watching();
    try {
      watch.start();
      await settle();
      const first = kv.opened[0]!;
      first.handlers.onMessage(CREATED);
      first.handlers.onMessage(response([["/r/a", 11]], true));
      first.handlers.onEnd(new EtcdRequestError("the HTTP/2 connection closed (ECONNRESET)", CODE_UNAVAILABLE));
      mock.timers.tick(2_000);
      await settle();
      const second = kv.opened[1]!;
      assert.equal(createRequestOf(second).start_revision, 11);
      second.handlers.onMessage(CREATED);
      second.handlers.onMessage(
        response(
          [
            ["/r/a", 11],
            ["/r/b", 11],
          ],
          false,
        ),
      );
      assert.deepEqual(delivered, [[["/r/a", "/r/b"], 11]], "revision 11 once, whole");
    } finally {
      watch.close();
    }
  });
});
