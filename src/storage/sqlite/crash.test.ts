/**
 * Storage-level crash durability: a writer process is killed with SIGKILL while writing, and
 * every write it had acknowledged must be in the database afterwards, with its value.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { crashValue } from "../../testing/sqlite-crash-writer.js";
import { openSqliteStorage } from "./sqlite-storage.js";

/** How long the writer runs after its first acknowledged write (about a second, per the brief). */
const RUN_MS = 1000;

test("acknowledged writes survive kill -9 of the writing process", { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "platform-crash-"));
  const path = join(dir, "db.sqlite");
  try {
    const acknowledged = await runAndKill(path);
    assert.ok(acknowledged.length > 0, "the writer acknowledged nothing before it was killed");

    const storage = openSqliteStorage(path);
    try {
      const missing: string[] = [];
      for (const key of acknowledged) {
        const kv = await storage.get(key);
        if (kv?.value.toString() !== crashValue(key)) missing.push(key);
      }
      assert.deepEqual(missing, [], `${missing.length} of ${acknowledged.length} acknowledged writes were lost`);
      // Revisions go on after the crash.
      const revision = await storage.currentRevision();
      assert.ok(revision >= acknowledged.length);
      assert.equal(await storage.create("/after-crash", Buffer.from("x")), revision + 1);
    } finally {
      await storage.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** Run the writer, SIGKILL it about RUN_MS after its first ack, return the keys it acknowledged. */
function runAndKill(path: string): Promise<string[]> {
  const script = fileURLToPath(new URL("../../testing/sqlite-crash-writer.js", import.meta.url));
  const child = spawn(process.execPath, [script, path], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let killTimer: NodeJS.Timeout | undefined;
  let killed = false;
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    stdout += chunk;
    killTimer ??= setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, RUN_MS);
  });
  child.stderr.on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    // "close" fires after stdout has been read to its end, so no acknowledged line is lost here.
    child.on("close", (code, signal) => {
      clearTimeout(killTimer);
      if (!killed || signal !== "SIGKILL") {
        reject(new Error(`writer exited on its own (code ${code}, signal ${signal}): ${stderr}`));
        return;
      }
      // The last line may be cut short by the kill: only complete lines were acknowledged.
      const lines = stdout.split("\n");
      resolve(lines.slice(0, -1));
    });
  });
}
