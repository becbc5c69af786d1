/**
 * A server replica as a child process, for tests that kill one hard (SIGKILL). Started by
 * tests as `node dist/testing/replica-process.js` (replica-child.ts) with PLATFORM_TEST_STORAGE
 * set, and optionally PLATFORM_TEST_DATA_DIR (default: a new temporary directory) and
 * PLATFORM_TEST_SERVER_CONFIG (JSON of more server settings); registers a controller that
 * prints `controller running` / `controller stopped` on stdout, and prints `ready <url>` once
 * serving.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerConfig } from "../app/config.js";
import { startServer } from "../app/start-server.js";

const settings = JSON.parse(process.env.PLATFORM_TEST_SERVER_CONFIG ?? "{}") as Partial<ServerConfig>;
const server = await startServer({
  host: "127.0.0.1",
  port: 0,
  logLevel: "error",
  storage: process.env.PLATFORM_TEST_STORAGE,
  bootstrapKey: process.env.PLATFORM_BOOTSTRAP_KEY,
  leaderElection: { ttlSeconds: 2, retryMs: 100 },
  ...settings,
  dataDir: process.env.PLATFORM_TEST_DATA_DIR ?? mkdtempSync(join(tmpdir(), "platform-replica-")),
});
server.controllers.register({
  name: "test-flag",
  start: () => void process.stdout.write("controller running\n"),
  stop: () => void process.stdout.write("controller stopped\n"),
});
process.stdout.write(`ready ${server.url}\n`);
process.on("SIGTERM", () => {
  void server.close().then(() => process.exit(0));
});
