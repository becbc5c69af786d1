import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { frameOf, WatchFrames } from "./watch-frame.js";
import { WatchWriter, watchRounds } from "./watch-writer.js";

/** A connection that keeps what is written to it (and never drains). */
function target(): { writes: Buffer[]; writableLength: number; write(data: Buffer): boolean } {
  const writes: Buffer[] = [];
  return {
    writes,
    writableLength: 0,
    write(data: Buffer) {
      writes.push(data);
      this.writableLength += data.length;
      return true;
    },
  };
}

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

/** A target whose every write keeps the CPU for `ms` (a round that long). */
function slowTarget(ms: number) {
  const slow = target();
  const write = slow.write.bind(slow);
  slow.write = (data: Buffer) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
    return write(data);
  };
  return slow;
}

/** One server's frames (WatchStreams.frames). */
const frames = new WatchFrames();

describe("watch frames", () => {
  test("an event is one HTTP chunk holding one JSON line, built once per object and type", () => {
    const object = { metadata: { name: "é" } };
    const frame = frames.shared("MODIFIED", object);
    const line = `{"type":"MODIFIED","object":${JSON.stringify(object)}}\n`;
    const size = Buffer.byteLength(line);
    assert.equal(frame.chunk.toString(), `${size.toString(16)}\r\n${line}\r\n`);
    assert.equal(frame.line.toString(), line);
    assert.equal(frames.shared("MODIFIED", object), frame);
    assert.notEqual(frames.shared("ADDED", object).chunk.toString(), frame.chunk.toString());
  });

  test("are one server's: another server's frames of the same object are built and kept apart", () => {
    const object = { metadata: { name: "shared" } };
    const json = Buffer.from('{"metadata":{"name":"stored"}}');
    const other = new WatchFrames();
    const [mine, theirs] = [frames.shared("ADDED", object), other.shared("ADDED", object)];
    assert.notEqual(theirs, mine, "nothing carried from one server's frames to the other's");
    assert.deepEqual(theirs, mine, "the same bytes all the same");
    assert.notEqual(other.stored("ADDED", json), frames.stored("ADDED", json));
  });
});

describe("watch writer", () => {
  test("the frames each watcher gets in one pass leave in one write, its own, in order", async () => {
    const [a, b] = [frames.shared("ADDED", { n: 1 }), frames.shared("ADDED", { n: 2 })];
    const c = frameOf('{"type":"BOOKMARK"}\n');
    const targets = [target(), target(), target(), target()];
    const writers = targets.map((t, i) => new WatchWriter(t, i < 3));
    // Two watchers with the same frames (their write can be shared), one with others, and one
    // response that is not chunked (bare lines).
    for (const w of [writers[0]!, writers[1]!]) {
      w.push(a);
      w.push(b);
    }
    writers[2]!.push(b);
    writers[2]!.push(c);
    writers[3]!.push(a);
    writers[3]!.push(b);
    assert.deepEqual(
      targets.map((t) => t.writes.length),
      [0, 0, 0, 0],
      "nothing is written before the pass ends",
    );
    await nextTick();
    const written = targets.map((t) => t.writes.map(String));
    assert.deepEqual(written, [
      [`${a.chunk}${b.chunk}`],
      [`${a.chunk}${b.chunk}`],
      [`${b.chunk}${c.chunk}`],
      [`${a.line}${b.line}`],
    ]);
    // The next pass writes again, only what is new.
    writers[0]!.push(c);
    await nextTick();
    assert.deepEqual(targets[0]!.writes.map(String), [`${a.chunk}${b.chunk}`, String(c.chunk)]);
  });

  test("the backlog counts frames not yet written and what the connection still holds", async () => {
    const t = target();
    const w = new WatchWriter(t, true);
    const frame = frameOf(`${"x".repeat(99)}\n`);
    w.push(frame);
    assert.equal(w.backlogOver(frame.chunk.length - 1), true);
    assert.equal(w.backlogOver(frame.chunk.length), false);
    await nextTick();
    // Written, but the client has not taken it: still the backlog.
    assert.equal(w.backlogOver(frame.chunk.length - 1), true);
    t.writableLength = 0;
    assert.equal(w.backlogOver(0), false);
  });

  test("a long round is followed by a rest as long as itself, whose frames then leave in one write per watcher", async (t) => {
    // Two watchers here stand for the hundreds whose writes make a round long.
    const minRestWriters = watchRounds.minRestWriters;
    watchRounds.minRestWriters = 1;
    t.after(() => {
      watchRounds.minRestWriters = minRestWriters;
    });
    // A round longer than minRestMs (a write that keeps the CPU that long, as 1,000 TLS writes do).
    const slow = slowTarget(watchRounds.minRestMs + 5);
    const fast = target();
    const [w, v] = [new WatchWriter(slow, true), new WatchWriter(fast, true)];
    const [a, b, c] = [frameOf('{"n":1}\n'), frameOf('{"n":2}\n'), frameOf('{"n":3}\n')];
    w.push(a);
    await nextTick();
    assert.equal(slow.writes.length, 1, "the first round runs at once");
    v.push(b);
    v.push(c);
    await nextTick();
    assert.equal(fast.writes.length, 0, "held back during the rest");
    await new Promise((resolve) => setTimeout(resolve, watchRounds.maxRestMs + 20));
    assert.deepEqual(fast.writes.map(String), [`${b.chunk}${c.chunk}`]);
  });

  test("a long round of few writes (interrupted, not costly) is not followed by a rest", async () => {
    const slow = slowTarget(watchRounds.maxRestMs + 5);
    const w = new WatchWriter(slow, true);
    const [a, b] = [frameOf('{"n":1}\n'), frameOf('{"n":2}\n')];
    w.push(a);
    await nextTick();
    w.push(b);
    await nextTick();
    assert.deepEqual(slow.writes.map(String), [String(a.chunk), String(b.chunk)]);
  });

  test("rests shorter than minRestMs are skipped: the next round runs in the next pass", async (t) => {
    const minRestMs = watchRounds.minRestMs;
    // Longer than any rest (maxRestMs): however long this machine takes over a round.
    watchRounds.minRestMs = watchRounds.maxRestMs + 1;
    t.after(() => {
      watchRounds.minRestMs = minRestMs;
    });
    const target_ = target();
    const w = new WatchWriter(target_, true);
    const [a, b] = [frameOf('{"n":1}\n'), frameOf('{"n":2}\n')];
    w.push(a);
    await nextTick();
    w.push(b);
    await nextTick();
    assert.deepEqual(target_.writes.map(String), [String(a.chunk), String(b.chunk)]);
  });
});
