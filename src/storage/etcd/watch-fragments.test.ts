/**
 * The watch stream asks etcd to split large responses (`fragment`) and hands on the parts of one
 * response as that one response: nothing of it before its last part, and nothing of the parts
 * of a stream lost before its last part (the next stream resumes before them). Driven by a
 * client of the test's own; message-limit-etcd.test.ts has a real etcd split a response.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterEach, describe, mock, test } from "node:test";
import protobuf from "protobufjs";
import type { WatchEvent } from "../interface.js";
import type { BidiHandlers } from "./grpc-bidi.js";
import { CODE_UNAVAILABLE } from "./grpc-unary.js";
import { EtcdRequestError } from "./kv-calls.js";
import { EtcdWatchStream, type WatchStreamKv } from "./watch-stream.js";

const etcd3Dir = dirname(createRequire(import.meta.url).resolve("etcd3/package.json"));
const root = new protobuf.Root().loadSync(join(etcd3Dir, "proto", "rpc.proto"), { keepCase: true });
const WatchRequest = root.lookupType("etcdserverpb.WatchRequest");
const WatchResponse = root.lookupType("etcdserverpb.WatchResponse");
const encode = (message: object): Buffer =>
  Buffer.from(WatchResponse.encode(WatchResponse.fromObject(message)).finish());

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

interface Opened {
  readonly handlers: BidiHandlers;
  readonly written: Buffer[];
}

/** Streams that stay open until the test ends them. */
class OpenStreams implements WatchStreamKv {
  readonly opened: Opened[] = [];
  async openStream(_path: string, handlers: BidiHandlers) {
    const stream: Opened = { handlers, written: [] };
    this.opened.push(stream);
    return {
      write: (m: Uint8Array) => {
        stream.written.push(Buffer.from(m));
      },
      cancel() {},
    };
  }
  forgetToken(): void {}
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function createRequestOf(stream: Opened) {
  const req = WatchRequest.toObject(WatchRequest.decode(stream.written[0]!), { longs: Number }) as {
    create_request: { start_revision?: number; fragment?: boolean };
  };
  return req.create_request;
}

function watching() {
  const kv = new OpenStreams();
  const delivered: Array<[string[], number]> = [];
  const watch = new EtcdWatchStream(kv, "/r/", 10, {
    onResponse: (events: WatchEvent[], revision) => delivered.push([events.map((e) => e.kv.key), revision]),
    onCompacted: () => assert.fail("not compacted"),
    onWarning: () => {},
  });
  return { kv, delivered, watch };
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
