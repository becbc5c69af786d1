/**
 * LIST of N.list Clusters from a server child of its own: whole and in pages, beside a bare
 * node:https server sending the same bytes and SQLite's read alone.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { type Bench, f, PATH, pct, req, spawnChild } from "../harness.js";

export async function benchList(b: Bench): Promise<void> {
  const { dir, N, row } = b;
  const d = await spawnChild(["server", join(dir, "b")], b.childExecArgv);
  b.children.push(d);
  const lport = d.first.port as number;
  const lkey = d.first.key as string;
  const empty = await d.ask<{ revision: number }>({ cmd: "revision" });
  await d.ask({ cmd: "fill", n: N.list });
  await d.ask({ cmd: "settle" });
  // One revision per created object; the rest are the controllers' (Cluster status).
  const reacted = (await d.ask<{ revision: number }>({ cmd: "revision" })).revision - empty.revision - N.list;
  // The first request also warms up (JIT, the caller's key activity record).
  const body = (await req(lport, lkey, "GET", PATH)).body;
  // The same bytes from a bare node:https server, fetched the same way and interleaved with
  // the real ones (the machine's noise hits both): the transport's share of the figure.
  const bodyFile = join(dir, "list-body.json");
  writeFileSync(bodyFile, body);
  const base = await spawnChild(["baseline", join(dir, "b"), `@${bodyFile}`]);
  b.children.push(base);
  const before = await d.ask<{ revision: number }>({ cmd: "revision" });
  const whole: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 15; i++) {
    let t = performance.now();
    await req(lport, lkey, "GET", PATH);
    whole.push(performance.now() - t);
    t = performance.now();
    await req(base.first.port as number, "", "GET", "/");
    bare.push(performance.now() - t);
  }
  base.proc.kill();
  const paged: number[] = [];
  const pages: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    let cont = "";
    for (let p = 0; p < 1000; p++) {
      const tp = performance.now();
      const r = await req(
        lport,
        lkey,
        "GET",
        `${PATH}?limit=${N.page}${cont ? `&continue=${encodeURIComponent(cont)}` : ""}`,
      );
      pages.push(performance.now() - tp);
      cont = continueOf(r.body);
      if (!cont) break;
    }
    paged.push(performance.now() - t);
  }
  const after = await d.ask<{ revision: number }>({ cmd: "revision" });
  // What a client that decodes the list pays on top (not part of the figures above).
  const tp = performance.now();
  JSON.parse(body.toString("utf8"));
  const parseMs = performance.now() - tp;
  const rawList = rawSqliteList(join(dir, "b", "platform.db"));
  const quiet = after.revision === before.revision ? "" : ` (${after.revision - before.revision} writes during it)`;
  row(
    `LIST ${N.list} (${f(body.length / 1048576)} MiB) ms, median${quiet}`,
    f(pct(whole, 50)),
    `${f(pct(bare, 50))} (bare node:https, same bytes); ${f(rawList)} (SQLite read alone)`,
    `${f((100 * pct(bare, 50)) / pct(whole, 50), 0)}%`,
  );
  row(
    `LIST in pages of ${N.page}: ms per page p50/p99; whole walk`,
    `${f(pct(pages, 50))}/${f(pct(pages, 99))}; ${f(pct(paged, 50))}`,
    `client JSON.parse of the whole list: ${f(parseMs)} ms; measured after ${reacted} controller writes settled`,
    "",
  );
  await d.ask({ cmd: "stop" }).catch(() => {});
}

/** metadata.continue of a list body, read from the envelope before `"items"` (no parse of the items). */
function continueOf(body: Buffer): string {
  const head = body.subarray(0, body.indexOf('"items":')).toString("utf8");
  return /"continue":"([^"]*)"/.exec(head)?.[1] ?? "";
}

function rawSqliteList(file: string): number {
  const db = new Database(file, { readonly: true });
  const t = performance.now();
  db.prepare("SELECT name, value FROM kv WHERE name >= ? AND name < ?").all(
    "/registry/management.platform/clusters/",
    "/registry/management.platform/clusters0",
  );
  const ms = performance.now() - t;
  db.close();
  return ms;
}
