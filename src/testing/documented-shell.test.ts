import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runShell, shellBlocks, shownOutput } from "./documented-shell.js";

/** How the docs tests read a page: the blocks, the mark of those not run, the output a line shows. */

const PAGE = `# A page

\`\`\`sh
kubectl get things   # thing-a
\`\`\`

- a list item:

  \`\`\`sh
  echo indented
  \`\`\`

<!-- not run by the docs tests: it needs a running virtual cluster -->
\`\`\`sh
kubectl --kubeconfig vc.kubeconfig get --raw /version
\`\`\`

\`\`\`yaml
not: a shell block
\`\`\`
`;

describe("documented-shell: a page's sh blocks as the docs tests read them", () => {
  const dir = mkdtempSync(join(tmpdir(), "documented-shell-"));
  const doc = join(dir, "page.md");
  writeFileSync(doc, PAGE);
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reads every sh block in order, unindented, with the page's mark on the one it does not run", () => {
    assert.deepEqual(shellBlocks(doc), [
      { text: "kubectl get things   # thing-a\n", notRunBecause: undefined },
      { text: "echo indented\n", notRunBecause: undefined },
      {
        text: "kubectl --kubeconfig vc.kubeconfig get --raw /version\n",
        notRunBecause: "it needs a running virtual cluster",
      },
    ]);
  });

  it("reads the output a line shows, and refuses a line that shows none", () => {
    const [shown, indented] = shellBlocks(doc);
    assert.equal(shownOutput(shown!.text, "get things"), "thing-a");
    assert.throws(() => shownOutput(indented!.text, "echo"), /shows no output/);
    assert.throws(() => shownOutput(shown!.text, "get others"), /0 lines contain/);
  });

  it("a block ends at its first failing command, with that command's exit code", async () => {
    const run = await runShell("echo before\nfalse\necho after", dir, {});
    assert.deepEqual(run, { code: 1, stdout: "before\n", stderr: "" });
    assert.equal((await runShell("false | true", dir, {})).code, 1, "pipefail: a failing stage fails the block");
  });
});
