import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import { runKubectl } from "./kube/kubectl.js";
import { isAlive, until } from "./process-wait.js";

/** Every process descending from `root` now (from /proc: pid → parent pid), with its command name. */
function descendants(root: number): Map<number, string> {
  const children = new Map<number, { pid: number; comm: string }[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // ended meanwhile
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ")".
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = children.get(ppid) ?? [];
    list.push({ pid: Number(entry), comm });
    children.set(ppid, list);
  }
  const found = new Map<number, string>();
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      found.set(child.pid, child.comm);
      visit(child.pid);
    }
  };
  visit(root);
  return found;
}

describe("npm run test-cluster", () => {
  let dir: string;
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("prints the admin kubeconfig once ready, serves kubectl, and stops everything on SIGTERM", async () => {
    dir = await mkdtemp(join(tmpdir(), "platform-test-cluster-"));
    const child = spawn("npm", ["run", "--silent", "test-cluster", "--", "--dir", dir, "--kubelet"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const lines = createInterface({ input: child.stdout });
      const first = await new Promise<string>((resolve, reject) => {
        lines.once("line", resolve);
        child.once("exit", () => reject(new Error(`test-cluster exited before printing its kubeconfig:\n${stderr}`)));
      });
      const match = /^kubeconfig: (.+)$/.exec(first);
      assert.ok(match, `first line: ${first}`);
      const kubeconfig = match[1]!;
      assert.ok(isAbsolute(kubeconfig), kubeconfig);
      assert.equal(kubeconfig, join(dir, "admin.kubeconfig"));
      assert.match(await runKubectl(kubeconfig, ["get", "namespaces", "-o", "name"]), /^namespace\/default$/m);
      // --kubelet: the stand-in registered its node.
      assert.match(await runKubectl(kubeconfig, ["get", "nodes", "-o", "name"]), /^node\/stand-in-node$/m);

      const started = descendants(child.pid!);
      const names = [...started.values()];
      for (const name of ["etcd", "kube-apiserver", "kube-controller-manager"]) {
        // /proc's command names are cut at 15 characters (kube-controller).
        assert.ok(names.includes(name.slice(0, 15)), `${name} runs under test-cluster: ${names.join(", ")}`);
      }

      child.kill("SIGTERM");
      assert.equal(await exited, 0, stderr);
      await until(
        "every process test-cluster started to end",
        () => [...started.keys()].every((pid) => !isAlive(pid)),
        30_000,
      );
    } finally {
      child.kill("SIGKILL");
    }
  });
});
