/**
 * Memory and cold start: the RSS of a server holding N.mem Teams beside an empty one's, and how
 * long a server with them takes to listen and then to fill its cache.
 */
import { join } from "node:path";
import { type Bench, f, spawnChild } from "../harness.js";

export async function benchMemory(b: Bench): Promise<void> {
  const { dir, N, row } = b;
  const empty = await spawnChild(["server", join(dir, "empty")]);
  b.children.push(empty);
  const emptyRss = (await empty.ask<{ rss: number }>({ cmd: "prime" })).rss;
  await empty.ask({ cmd: "stop" }).catch(() => {});
  const m = await spawnChild(["server", join(dir, "m")]);
  b.children.push(m);
  // Teams: no controller writes back to them, so what is measured is what the server holds.
  const filled = await m.ask<{ bytes: number }>({ cmd: "fill", n: N.mem, kind: "teams" });
  await m.ask({ cmd: "stop" }).catch(() => {});
  const t = performance.now();
  const cold = await spawnChild(["server", join(dir, "m")]);
  b.children.push(cold);
  const listening = performance.now() - t;
  const primed = await cold.ask<{ primeMs: number; rss: number }>({ cmd: "prime", kind: "teams" });
  const extra = primed.rss - emptyRss;
  row(
    `RSS with ${N.mem} objects (${f(filled.bytes / 1048576)} MiB serialized)`,
    `${f(primed.rss / 1048576)} MiB`,
    `${f(emptyRss / 1048576)} MiB empty`,
    `${f(extra / filled.bytes, 2)}x above base`,
  );
  row(
    `Cold start with ${N.mem} objects: process→listening; +cache filled`,
    `${f(listening, 0)} ms; +${f(primed.primeMs, 0)} ms`,
    "",
    "",
  );
  await cold.ask({ cmd: "stop" }).catch(() => {});
}
