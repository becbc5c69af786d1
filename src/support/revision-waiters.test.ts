import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RevisionWaiters } from "./revision-waiters.js";

describe("RevisionWaiters", () => {
  it("lets callers go once their revision is reached, later ones when theirs is", async () => {
    const waiters = new RevisionWaiters();
    const done: number[] = [];
    const at = (r: number) => waiters.wait(r).then((reached) => reached && done.push(r));
    const all = [at(3), at(5), at(4)];
    waiters.release(4);
    await Promise.all([all[0], all[2]]);
    assert.deepEqual(done.sort(), [3, 4]);
    waiters.release(5);
    await all[1];
    assert.deepEqual(done.sort(), [3, 4, 5]);
  });

  it("a timed wait gives up with false and is removed; releaseAll lets everyone go", async () => {
    const waiters = new RevisionWaiters();
    assert.equal(await waiters.wait(10, 5), false);
    const pending = waiters.wait(10);
    waiters.releaseAll();
    assert.equal(await pending, true);
  });
});
