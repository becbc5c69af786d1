/**
 * The storage's side of the etcd client's largest message: the watch stream's restarts after an
 * oversized message, and the storage URL's max-receive-message-bytes= (the client's side:
 * client/grpc-message-limit.test.ts).
 */
import assert from "node:assert/strict";
import { afterEach, describe, mock, test } from "node:test";
import { encodeAs, WatchResponse } from "../../testing/etcd-rpc-proto.js";
import { type BidiHandlers, DEFAULT_MAX_RECEIVE_MESSAGE_BYTES, MessageTooLargeError } from "./client/index.js";
import { parseEtcdUrl } from "./etcd-url.js";
import { EtcdWatchStream, type WatchStreamKv } from "./watch-stream.js";

const LIMIT = 1024;

const CREATED = encodeAs(WatchResponse, { created: true });

/** Every stream is created, then ends at once on a message over the limit (etcd sends it again on every restart). */
class OversizedEveryTime implements WatchStreamKv {
  opened = 0;
  async openStream(_path: string, handlers: BidiHandlers) {
    this.opened++;
    setImmediate(() => {
      handlers.onMessage(CREATED);
      handlers.onEnd(new MessageTooLargeError(2 ** 32 - 1, LIMIT));
    });
    return { write() {}, cancel() {} };
  }
  forgetToken(): void {}
}

describe("the watch stream failing on the same oversized message again and again", () => {
  afterEach(() => mock.timers.reset());

  test("restarts with a growing backoff (a created stream does not reset it) and logs each failure", async () => {
    mock.timers.enable({ apis: ["setTimeout"] });
    const warnings: string[] = [];
    const kv = new OversizedEveryTime();
    const watch = new EtcdWatchStream(kv, "", 10, {
      onResponse: assert.fail,
      onCompacted: assert.fail,
      onWarning: (message) => warnings.push(message),
    });
    const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
    try {
      watch.start();
      for (let ms = 0; ms < 1_000; ms += 5) {
        await settle();
        await settle();
        mock.timers.tick(5);
      }
      // Backoff from 25-50 ms doubling: at most 6 streams in a second (a reset backoff: 20 or more).
      assert.ok(kv.opened >= 3 && kv.opened <= 6, `${kv.opened} streams in one second`);
      assert.ok(warnings.length >= 2);
      assert.match(warnings[0]!, /etcd watch stream failed: .*over the limit.*restarting at revision 11/);
    } finally {
      watch.close();
    }
  });
});

describe("the storage URL's max-receive-message-bytes=", () => {
  test("sets the limit; without it the client's default applies; nonsense is refused", () => {
    assert.equal(parseEtcdUrl("etcd://h:1").maxReceiveMessageBytes, undefined);
    assert.equal(DEFAULT_MAX_RECEIVE_MESSAGE_BYTES, 64 << 20, "64 MiB (grpc-unary.ts says why)");
    assert.equal(parseEtcdUrl("etcd://h:1?max-receive-message-bytes=67108864").maxReceiveMessageBytes, 64 << 20);
    for (const bad of ["", "-1", "64MiB", "1023", "4294967296", "1.5"])
      assert.throws(
        () => parseEtcdUrl(`etcd://h:1?max-receive-message-bytes=${bad}`),
        /expected a number of bytes from 1024 to 4294967295/,
        bad,
      );
  });
});

/** Streams that are created and end when the test says. */
class EndsOnCue implements WatchStreamKv {
  readonly handlers: BidiHandlers[] = [];
  async openStream(_path: string, handlers: BidiHandlers) {
    this.handlers.push(handlers);
    setImmediate(() => handlers.onMessage(CREATED));
    return { write() {}, cancel() {} };
  }
  forgetToken(): void {}
}

describe("the watch stream's backoff after a stream that was healthy", () => {
  afterEach(() => mock.timers.reset());

  test("a stream that stayed up 10 s starts the backoff afresh: its loss is followed by a quick restart", async () => {
    mock.timers.enable({ apis: ["setTimeout", "Date"] });
    const kv = new EndsOnCue();
    const watch = new EtcdWatchStream(kv, "", 10, {
      onResponse: assert.fail,
      onCompacted: assert.fail,
      onWarning: () => {},
    });
    const settle = async () => {
      for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    };
    const lose = () => kv.handlers.at(-1)!.onEnd(new MessageTooLargeError(2 ** 32 - 1, LIMIT));
    mock.method(console, "warn", () => {});
    try {
      watch.start();
      await settle();
      for (let i = 0; i < 6; i++) {
        lose(); // lost at once after "created": the backoff grows to its 2 s ceiling
        mock.timers.tick(2_000);
        await settle();
      }
      assert.equal(kv.handlers.length, 7);
      mock.timers.tick(10_000); // the 7th stream stays up 10 s
      lose();
      mock.timers.tick(50); // the first step's ceiling
      await settle();
      assert.equal(kv.handlers.length, 8, "restarted within 50 ms, not after up to 2 s");
    } finally {
      watch.close();
      mock.restoreAll();
    }
  });
});
