import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { type Agent, request as httpsRequest } from "node:https";
import { createServer } from "node:net";
import { join } from "node:path";

/** A `platform start` child process, for tests that kill or signal the server. */
export interface ServerProcess {
  child: ChildProcess;
  url: string;
  port: number;
  caPem: string;
  adminKey: string;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/** Starts `node bin/platform.js start` on a data dir and waits until it serves. */
export async function startServerProcess(
  dataDir: string,
  port?: number,
  extraArgs: string[] = [],
  /** The process's environment (default: this one's). */
  env?: NodeJS.ProcessEnv,
  /** A command that runs the server's command line given as its arguments, and execs it (same pid). */
  launcher: string[] = [],
): Promise<ServerProcess> {
  // Without a port, the server picks a free one itself (port 0) and says which: a port found free
  // here first could be taken by another process (any outgoing connection) before the server binds it.
  const listen = `127.0.0.1:${port ?? 0}`;
  const [command, ...args] = [
    ...launcher,
    process.execPath,
    "bin/platform.js",
    "start",
    "--data-dir",
    dataDir,
    "--listen",
    listen,
    ...extraArgs,
  ];
  const child = spawn(command!, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  let out = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  // Generous: a first start creates the CA and keys, and a loaded CI machine is slow at it.
  const deadline = Date.now() + 120_000;
  const listening = /platform is listening on \S+:(\d+)/;
  while (!listening.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      // Never leave it behind: a live child keeps the test process (and the data dir's lock) alive.
      if (child.exitCode === null) child.kill("SIGKILL");
      throw new Error(`server did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const p = Number(listening.exec(out)![1]);
  let files: { caPem: string; adminKey: string };
  try {
    files = {
      caPem: readFileSync(join(dataDir, "ca.crt"), "utf8"),
      adminKey: readFileSync(join(dataDir, "admin-access-key"), "utf8").trim(),
    };
  } catch (err) {
    // No admin key file (a data dir whose admin was made earlier): the caller never gets the
    // child to stop, so stop it here, or it keeps the test process waiting on its output.
    child.kill("SIGKILL");
    throw err;
  }
  return { child, url: `https://127.0.0.1:${p}`, port: p, ...files, output: () => out, exited };
}

/** One request to a server process as its admin; `agent: false` opens a fresh connection. */
export function callAsAdmin(
  server: ServerProcess,
  agent: Agent | false,
  method: string,
  path: string,
  body?: unknown,
  /** Added to (or replacing) the admin's authorization and the content type. */
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpsRequest(
      new URL(path, server.url),
      {
        method,
        agent,
        ca: server.caPem,
        headers: {
          authorization: `Bearer ${server.adminKey}`,
          ...(payload ? { "content-type": "application/json" } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          text += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
