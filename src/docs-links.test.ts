import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

// The links of README.md and docs/: every relative link names a file of the repository, and
// every `#anchor` a heading of its target, so that a renamed heading or file shows here.

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function markdownFiles(): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(root, "docs", f));
  return [join(root, "README.md"), ...docs];
}

/** The text outside fenced code blocks and inline code, where a `[x](y)` is a link. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Every `src/...` path in a text: a file or directory of the repository, up to a `*` or punctuation. */
export function sourcePaths(text: string): string[] {
  return [...text.matchAll(/(?<![\w./-])src\/[\w./-]*[\w]/g)].map((m) => m[0]);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutCode = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const m of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

describe("links between README.md and docs/", () => {
  it("every relative link and anchor resolves", () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of markdownFiles()) {
      const text = readFileSync(file, "utf8");
      for (const m of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        checked++;
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const targetFile = path === "" ? file : join(dirname(file), decodeURIComponent(path));
        const where = `${relative(root, file)}: (${target})`;
        if (!existsSync(targetFile)) {
          broken.push(`${where}: no file ${relative(root, targetFile)}`);
          continue;
        }
        if (anchor !== undefined && targetFile.endsWith(".md")) {
          if (!headingAnchors(readFileSync(targetFile, "utf8")).has(anchor)) {
            broken.push(`${where}: no heading with anchor #${anchor} in ${relative(root, targetFile)}`);
          }
        }
      }
    }
    assert.ok(checked >= 50, `found only ${checked} links`);
    assert.deepEqual(broken, []);
  });

  it("every src/ path they name exists", () => {
    // Anywhere in the text, code included: a renamed or removed file shows here.
    const missing: string[] = [];
    let checked = 0;
    for (const file of markdownFiles()) {
      for (const path of sourcePaths(readFileSync(file, "utf8"))) {
        checked++;
        if (!existsSync(join(root, path))) missing.push(`${relative(root, file)}: ${path}`);
      }
    }
    assert.ok(checked >= 50, `found only ${checked} src/ paths`);
    assert.deepEqual(missing, []);
  });

  it("src/ paths are read up to their last letter or digit", () => {
    assert.deepEqual(
      sourcePaths("see `src/a/b.ts`, src/c/d.test.ts: and (src/e/) or src/kinds/*/x.ts; not my-src/f.ts"),
      ["src/a/b.ts", "src/c/d.test.ts", "src/e", "src/kinds"],
    );
  });

  it("anchors follow GitHub's rules", () => {
    assert.deepEqual(
      [
        ...headingAnchors(
          "# A: `--workers` thing\n## Behind a load balancer: `--trusted-proxies`\n## Same\n## Same\n```\n# not a heading\n```",
        ),
      ],
      ["a---workers-thing", "behind-a-load-balancer---trusted-proxies", "same", "same-1"],
    );
  });
});
