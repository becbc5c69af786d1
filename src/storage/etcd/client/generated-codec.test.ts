/**
 * The committed codec (generated/) is what scripts/generate-etcd-codec.js makes of the committed
 * .proto files (proto/) today: a hand edit of the generated code, a .proto change or a generator
 * upgrade without `npm run generate:etcd-codec` fails here.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

// Four levels up from src/storage/etcd/client/ and from dist/storage/etcd/client/: the repository.
const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const committed = join(repo, "src", "storage", "etcd", "client", "generated");

describe("the etcd client's generated codec", () => {
  const fresh = mkdtempSync(join(tmpdir(), "platform-etcd-codec-"));
  after(() => rmSync(fresh, { recursive: true, force: true }));

  test("is exactly what the generator makes of etcd's .proto files now", () => {
    execFileSync(process.execPath, [join(repo, "scripts", "generate-etcd-codec.js"), "--to", fresh], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const files = readdirSync(fresh).sort();
    assert.deepEqual(files, ["etcd-rpc.cjs", "etcd-rpc.d.cts"]);
    assert.deepEqual(readdirSync(committed).sort(), files, "the committed files are the generated ones");
    for (const file of files) {
      const same = readFileSync(join(fresh, file), "utf8") === readFileSync(join(committed, file), "utf8");
      assert.ok(same, `${file} differs from a fresh generation: run npm run generate:etcd-codec and commit it`);
    }
  });
});
