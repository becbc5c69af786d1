import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { stringify } from "yaml";
import type { FakeClusterApiServer } from "./fake-cluster-apiserver.js";
import { GROUP_PATH, type TestServer } from "./test-server.js";

/**
 * What the gateway and agent tests share: objects created on a platform server (201 asserted),
 * a stand-in cluster connected through a kubeconfig SharedSecret, access keys, and real kubectl
 * pointed at a gateway or agent URL with a bearer token.
 */

const run = promisify(execFile);
export const KUBECTL = "/usr/bin/kubectl";

/** POSTs a management object and returns it; anything but 201 fails the test. */
export async function postObject(server: TestServer, path: string, body: unknown, token?: string) {
  const res = await server.request("POST", `${GROUP_PATH}/${path}`, { body, token });
  assert.equal(res.status, 201, `${path}: ${res.text}`);
  return res.json;
}

/** A new access key of `user` (optionally scoped); returns the key itself. */
export async function accessKey(server: TestServer, user: string, scope?: unknown): Promise<string> {
  const created = await postObject(server, "ownedaccesskeys", {
    metadata: { generateName: `${user}-` },
    spec: { user, ...(scope ? { scope } : {}) },
  });
  return created.spec.key as string;
}

/** Connects a stand-in cluster as Cluster `name`: its kubeconfig in a SharedSecret, then the Cluster with `spec`. */
export async function connectCluster(
  server: TestServer,
  name: string,
  cluster: Pick<FakeClusterApiServer, "kubeconfig">,
  spec: Record<string, unknown> = {},
): Promise<void> {
  await postObject(server, "namespaces/platform/sharedsecrets", {
    metadata: { name: `${name}-kubeconfig` },
    spec: { data: { config: Buffer.from(cluster.kubeconfig()).toString("base64") } },
  });
  await postObject(server, "clusters", {
    metadata: { name },
    spec: { config: { secretName: `${name}-kubeconfig` }, ...spec },
  });
}

let files = 0;

/** Writes a kubeconfig for `server` (a gateway or agent base URL) trusting `caPem`, in `dir`; returns its path. */
export function writeKubeconfig(dir: string, server: string, caPem: string, token: string): string {
  const file = join(dir, `kc-${process.pid}-${++files}.kubeconfig`);
  writeFileSync(
    file,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        { name: "gw", cluster: { server, "certificate-authority-data": Buffer.from(caPem).toString("base64") } },
      ],
      users: [{ name: "gw", user: { token } }],
      contexts: [{ name: "gw", context: { cluster: "gw", user: "gw", namespace: "default" } }],
      "current-context": "gw",
    }),
    { mode: 0o600 },
  );
  return file;
}

/** Where kubectl goes: a base URL, the CA it trusts, and a directory for its kubeconfigs. */
export interface KubectlTarget {
  url: string;
  caPem: string;
  dir: string;
}

/** Runs kubectl against `target` as `token`; `env` adds variables (KUBECTL_*_WEBSOCKETS=false for SPDY). */
export function kubectlAt(target: KubectlTarget, token: string, args: string[], env: Record<string, string> = {}) {
  const file = writeKubeconfig(target.dir, target.url, target.caPem, token);
  return run(KUBECTL, [`--kubeconfig=${file}`, ...args], { timeout: 30_000, env: { ...process.env, ...env } });
}

/**
 * `kubectl port-forward POD :8080` against `target`; resolves with the local port kubectl
 * listens on once it says so (the caller kills the child).
 */
export async function startPortForward(
  target: KubectlTarget,
  token: string,
  pod: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; port: number }> {
  const file = writeKubeconfig(target.dir, target.url, target.caPem, token);
  const child = spawn(KUBECTL, [`--kubeconfig=${file}`, "port-forward", pod, ":8080"], {
    env: { ...process.env, ...env },
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const port = Number(/Forwarding from 127\.0\.0\.1:(\d+)/.exec(out)?.[1] ?? 0);
    if (port > 0) return { child, port };
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill();
      throw new Error(`kubectl port-forward did not start: ${out} ${err}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Sends `text` to 127.0.0.1:`port` (a port kubectl forwards) and resolves with what comes back. */
export function echoThrough(port: number, text: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    let got = "";
    socket.on("data", (d: Buffer) => {
      got += d.toString();
      if (got.length >= text.length) {
        socket.end();
        resolve(got);
      }
    });
    socket.on("error", reject);
  });
}
