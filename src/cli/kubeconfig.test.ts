import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { parse } from "yaml";
import { runCli } from "../testing/cli-run.js";
import { withFileLock } from "./file-lock.js";

describe("kubeconfig writing", () => {
  const dirs: string[] = [];
  const newDir = () => {
    const d = mkdtempSync(join(tmpdir(), "platform-kc-"));
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("concurrent `platform use management` runs keep every context (the write takes FILE.lock)", async () => {
    const home = newDir();
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ login: { server: "https://platform.example.com:8443", accessKey: "k".repeat(40) } }),
      { mode: 0o600 },
    );
    writeFileSync(
      join(home, "kubeconfig"),
      'apiVersion: v1\nkind: Config\ncontexts:\n- name: mine\n  context: {cluster: x, user: "y"}\n',
    );
    const names = ["c1", "c2", "c3", "c4"];
    const runs = await Promise.all(
      names.map((n) => runCli(home, ["use", "management", "--context-name", n, "--no-switch"])),
    );
    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const kc = parse(readFileSync(join(home, "kubeconfig"), "utf8"));
    assert.deepEqual(kc.contexts.map((c: { name: string }) => c.name).sort(), ["c1", "c2", "c3", "c4", "mine"]);
    assert.equal(statSync(join(home, "kubeconfig")).mode & 0o777, 0o600);
    assert.equal(existsSync(join(home, "kubeconfig.lock")), false, "the lock is released");
    for (const n of names) {
      const user = kc.users.find((u: { name: string }) => u.name === n).user;
      assert.deepEqual(
        user.exec.args,
        ["token", "--server", "https://platform.example.com:8443"],
        "exec plugin for the login's server, not the key",
      );
    }
  });

  it("withFileLock refuses while another holds the lock, and takes over a stale one", () => {
    const lock = join(newDir(), "kubeconfig.lock");
    writeFileSync(lock, "");
    let ran = false;
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    withFileLock(lock, () => {
      ran = true;
      assert.ok(existsSync(lock));
      // Held now: a second taker waits, then gives up with a message naming the file.
      assert.throws(() => withFileLock(lock, () => undefined, 200), /kubeconfig\.lock is held by another program/);
    });
    assert.ok(ran);
    assert.equal(existsSync(lock), false);
  });
});
