import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { HEAP_GROWING_PERCENT, tuneGarbageCollector } from "./gc-tuning.js";

/** What `tuneGarbageCollector` asked V8 for, given the process's node flags. */
function flagsSetFor(execArgv: string[]): string[] {
  const set: string[] = [];
  tuneGarbageCollector(execArgv, (flags) => set.push(flags));
  return set;
}

const testServer = fileURLToPath(new URL("../testing/test-server.js", import.meta.url));

/**
 * Starts a real server in a child node with `nodeFlags`, forces one full collection once it
 * listens and returns the growing factor V8 reported choosing at that collection
 * (`--trace-gc-verbose`, on stdout: "[HeapController] Limit: old size: …, new limit: … (F)").
 * The forced collection is the last: the server is closed without another.
 */
function factorAfterServerStart(nodeFlags: string[]): string | undefined {
  const script = `
    const { startTestServer } = await import(${JSON.stringify(testServer)});
    const server = await startTestServer();
    globalThis.gc();
    server.close().finally(() => process.exit(0));
  `;
  const child = spawnSync(
    process.execPath,
    [...nodeFlags, "--expose-gc", "--trace-gc-verbose", "--input-type=module", "-e", script],
    { encoding: "utf8", timeout: 60_000 },
  );
  assert.equal(child.status, 0, `${child.stdout}${child.stderr}`.slice(-2000));
  const limits = [...child.stdout.matchAll(/\[HeapController\] Limit: .*\((\d+\.\d)\)/g)];
  return limits.at(-1)?.[1];
}

describe("the garbage collector's growing factor", () => {
  it("is fixed at 2 unless the operator chose one", () => {
    assert.equal(HEAP_GROWING_PERCENT, 100);
    assert.deepEqual(flagsSetFor([]), ["--heap-growing-percent=100"]);
    assert.deepEqual(flagsSetFor(["--enable-source-maps", "--max-old-space-size=4096"]), [
      "--heap-growing-percent=100",
    ]);
    // node accepts V8 flags with dashes or underscores
    assert.deepEqual(flagsSetFor(["--heap-growing-percent=300"]), []);
    assert.deepEqual(flagsSetFor(["--heap_growing_percent=50"]), []);
    // another flag that only begins alike is not the operator's choice of this one
    assert.deepEqual(flagsSetFor(["--heap-growing-percentage=3"]), ["--heap-growing-percent=100"]);
  });

  it("a started server's next full collection grows the heap by 2, as V8 itself reports", () => {
    assert.equal(factorAfterServerStart([]), "2.0");
  });

  it("keeps the factor the operator gave node", () => {
    assert.equal(factorAfterServerStart(["--heap-growing-percent=50"]), "1.5");
  });
});
