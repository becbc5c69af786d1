import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ServerConfig } from "../app/config.js";

/**
 * A server replica in a child process (replica-process.ts), for tests that kill one hard
 * (SIGKILL), as a crash or a lost machine would: it gives up nothing (its leader lease stays
 * until the lease's time has passed), unlike a stop.
 */
export interface ReplicaChild {
  /** Whether its controllers run (it is the elected leader), as it last printed. */
  readonly running: boolean;
  /** Its stdout and stderr so far. */
  readonly output: string;
  /** Resolves once it serves; rejects if it exits first. */
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  /** SIGKILL, once it runs (harmless after it ended). */
  kill(): void;
}

export interface ReplicaChildOptions {
  bootstrapKey: string;
  /** Its data directory (default: a new temporary one); replicas share its keys (docs/deployment.md). */
  dataDir?: string;
  /** More server settings, as the test's in-process replicas get them. */
  config?: Partial<ServerConfig>;
}

/** Starts a replica on `storage` (an etcd URL) in a child process. */
export function spawnReplica(storage: string, options: ReplicaChildOptions): ReplicaChild {
  const script = fileURLToPath(new URL("./replica-process.js", import.meta.url));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PLATFORM_TEST_STORAGE: storage,
    PLATFORM_BOOTSTRAP_KEY: options.bootstrapKey,
    PLATFORM_TEST_SERVER_CONFIG: JSON.stringify(options.config ?? {}),
  };
  if (options.dataDir) env.PLATFORM_TEST_DATA_DIR = options.dataDir;
  const proc = spawn(process.execPath, [script], { env, stdio: ["ignore", "pipe", "pipe"] });
  const state = {
    running: false,
    output: "",
    ready: undefined as unknown as Promise<void>,
    exited: new Promise<void>((resolve) => proc.once("exit", () => resolve())),
    kill: () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
    },
  };
  state.ready = new Promise<void>((resolve, reject) => {
    proc.stdout.on("data", (chunk: Buffer) => {
      state.output += chunk.toString();
      for (const line of chunk.toString().split("\n")) {
        if (line === "controller running") state.running = true;
        if (line === "controller stopped") state.running = false;
        if (line.startsWith("ready ")) resolve();
      }
    });
    proc.stderr.on("data", (chunk: Buffer) => {
      state.output += chunk.toString();
    });
    proc.once("exit", () => {
      state.running = false;
      reject(new Error(`replica process exited: ${state.output}`));
    });
  });
  state.ready.catch(() => undefined);
  return state;
}
