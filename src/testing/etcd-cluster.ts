/**
 * Test helper: a real etcd cluster (1 or 3 members) on 127.0.0.1 with free ports and temporary
 * data dirs, started from the `etcd` binary on PATH (.ci/etcd-install.sh installs it). A missing
 * binary is an error, never a skip: the etcd tests must run in CI.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, request } from "undici";
import type { EtcdTlsFiles } from "./etcd-tls.js";

/** Bounded wait for a member to answer /health (hang guard, not a timing assertion). */
const READY_ATTEMPTS = 600;
const POLL_MS = 50;

function etcdBinary(): string {
  try {
    return execFileSync("sh", ["-c", "command -v etcd"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(
      "etcd is not installed (no `etcd` on PATH). The etcd tests need it: run .ci/etcd-install.sh " +
        "(apt-get install etcd-server) or put an etcd v3.4+ binary on PATH.",
    );
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface EtcdClusterOptions {
  /** Serve clients over TLS only and require client certificates (--client-cert-auth). */
  readonly tls?: EtcdTlsFiles;
  /** etcd's --auth-token-ttl (seconds) for simple tokens, once auth is enabled. */
  readonly authTokenTtl?: number;
  /** etcd's --max-request-bytes (default 1.5 MiB): also where etcd splits a fragmented watch response. */
  readonly maxRequestBytes?: number;
}

interface Member {
  readonly name: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly dataDir: string;
  process: ChildProcess | undefined;
  log: string;
}

export class EtcdCluster {
  private constructor(
    private readonly members: Member[],
    private readonly root: string,
    private readonly binary: string,
    private readonly token: string,
    private readonly options: EtcdClusterOptions,
    /** undici dispatcher with the client certificate, under TLS. */
    private readonly dispatcher: Agent | undefined,
  ) {}

  /** Starts `size` members and waits until the cluster answers. */
  static async start(size: 1 | 3 = 1, options: EtcdClusterOptions = {}): Promise<EtcdCluster> {
    const binary = etcdBinary();
    const root = await mkdtemp(join(tmpdir(), "platform-etcd-"));
    const members: Member[] = [];
    for (let i = 0; i < size; i++) {
      members.push({
        name: `m${i}`,
        clientPort: await freePort(),
        peerPort: await freePort(),
        dataDir: join(root, `m${i}`),
        process: undefined,
        log: "",
      });
    }
    const tls = options.tls;
    const dispatcher = tls
      ? new Agent({
          connect: { ca: readFileSync(tls.ca), cert: readFileSync(tls.clientCert), key: readFileSync(tls.clientKey) },
        })
      : undefined;
    const cluster = new EtcdCluster(members, root, binary, randomUUID(), options, dispatcher);
    try {
      for (let i = 0; i < size; i++) cluster.spawn(i);
      for (let i = 0; i < size; i++) await cluster.waitHealthy(i);
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** `host:port,host:port` of every member. */
  get endpoints(): string[] {
    return this.members.map((m) => `127.0.0.1:${m.clientPort}`);
  }

  /** The storage URL for the whole cluster (with the client certificate's files under TLS). */
  get url(): string {
    const tls = this.options.tls;
    const query = tls ? `?cacert=${tls.ca}&cert=${tls.clientCert}&key=${tls.clientKey}` : "";
    return `etcd://${this.endpoints.join(",")}${query}`;
  }

  private get scheme(): string {
    return this.options.tls ? "https" : "http";
  }

  /** POST to etcd's JSON gateway on member i (a status error throws). */
  async post(i: number, path: string, body: object, headers: Record<string, string> = {}): Promise<unknown> {
    const m = this.members[i]!;
    const res = await request(`${this.scheme}://127.0.0.1:${m.clientPort}${path}`, {
      method: "POST",
      body: JSON.stringify(body),
      headers,
      ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`etcd ${path}: ${res.statusCode} ${text}`);
    return JSON.parse(text) as unknown;
  }

  /** Turns etcd authentication on with a `root` user of that password (etcd's root role). */
  async enableAuth(password: string): Promise<void> {
    await this.post(0, "/v3/auth/user/add", { name: "root", password });
    await this.post(0, "/v3/auth/user/grant", { user: "root", role: "root" });
    await this.post(0, "/v3/auth/enable", {});
  }

  get size(): number {
    return this.members.length;
  }

  private spawn(i: number): void {
    stopAtExit(this);
    const m = this.members[i]!;
    const initialCluster = this.members.map((x) => `${x.name}=http://127.0.0.1:${x.peerPort}`).join(",");
    const tls = this.options.tls;
    const tlsArgs = tls
      ? [
          `--cert-file=${tls.memberCert}`,
          `--key-file=${tls.memberKey}`,
          `--trusted-ca-file=${tls.ca}`,
          "--client-cert-auth",
        ]
      : [];
    const ttl = this.options.authTokenTtl;
    const maxRequestBytes = this.options.maxRequestBytes;
    const child = spawn(
      this.binary,
      [
        `--name=${m.name}`,
        `--data-dir=${m.dataDir}`,
        `--listen-client-urls=${this.scheme}://127.0.0.1:${m.clientPort}`,
        `--advertise-client-urls=${this.scheme}://127.0.0.1:${m.clientPort}`,
        ...tlsArgs,
        ...(ttl !== undefined ? [`--auth-token-ttl=${ttl}`] : []),
        ...(maxRequestBytes !== undefined ? [`--max-request-bytes=${maxRequestBytes}`] : []),
        `--listen-peer-urls=http://127.0.0.1:${m.peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${m.peerPort}`,
        `--initial-cluster=${initialCluster}`,
        `--initial-cluster-state=new`,
        `--initial-cluster-token=${this.token}`,
        // Short election timings: fault tests then recover quickly on a loaded machine too.
        "--heartbeat-interval=50",
        "--election-timeout=500",
        "--logger=zap",
        "--log-level=error",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    m.process = child;
    m.log = "";
    const keep = (chunk: Buffer): void => {
      m.log = (m.log + chunk.toString()).slice(-8_000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
  }

  private async waitHealthy(i: number): Promise<void> {
    const m = this.members[i]!;
    for (let attempt = 0; attempt < READY_ATTEMPTS; attempt++) {
      if (m.process?.exitCode !== null && m.process?.exitCode !== undefined) {
        throw new Error(`etcd member ${m.name} exited (${m.process.exitCode}): ${m.log}`);
      }
      try {
        const res = await request(`${this.scheme}://127.0.0.1:${m.clientPort}/health`, {
          ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
        });
        const body = (await res.body.json()) as { health?: string };
        if (body.health === "true") return;
      } catch {
        // not listening yet
      }
      await sleep(POLL_MS);
    }
    throw new Error(`etcd member ${m.name} did not become healthy: ${m.log}`);
  }

  /** Index of the current leader (asks every running member until one knows). */
  async leader(): Promise<number> {
    for (let attempt = 0; attempt < READY_ATTEMPTS; attempt++) {
      for (let i = 0; i < this.members.length; i++) {
        if (!this.isRunning(i)) continue;
        try {
          const status = (await this.post(i, "/v3/maintenance/status", {})) as {
            header?: { member_id?: string };
            leader?: string;
          };
          if (status.leader && status.leader !== "0" && status.leader === status.header?.member_id) return i;
        } catch {
          // member busy or down
        }
      }
      await sleep(POLL_MS);
    }
    throw new Error("no etcd leader found");
  }

  isRunning(i: number): boolean {
    const p = this.members[i]?.process;
    return p !== undefined && p.exitCode === null && p.signalCode === null;
  }

  /** Kills a member hard (SIGKILL) and waits for the process to be gone. */
  async kill(i: number): Promise<void> {
    const p = this.members[i]?.process;
    if (!p || !this.isRunning(i)) return;
    const exited = new Promise<void>((resolve) => p.once("exit", () => resolve()));
    p.kill("SIGKILL");
    await exited;
  }

  /** Starts a killed member again on its data dir and waits until it is healthy. */
  async restart(i: number): Promise<void> {
    if (this.isRunning(i)) return;
    this.spawn(i);
    await this.waitHealthy(i);
  }

  /** Kills every member at once, synchronously (the process is exiting). */
  killNow(): void {
    for (const m of this.members) if (m.process?.exitCode === null) m.process.kill("SIGKILL");
  }

  /** Stops every member and removes the data dirs. */
  async stop(): Promise<void> {
    running.delete(this);
    for (let i = 0; i < this.members.length; i++) await this.kill(i);
    await rm(this.root, { recursive: true, force: true });
    await this.dispatcher?.close();
  }
}

/** Clusters started by this process and not stopped: killed when it exits, so none is orphaned. */
const running = new Set<EtcdCluster>();
let exitHookInstalled = false;

function stopAtExit(cluster: EtcdCluster): void {
  running.add(cluster);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const c of running) c.killNow();
  });
}
