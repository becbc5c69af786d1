import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { buildProgram } from "./main.js";

// The `platform …` commands README.md and docs/ show: each names a command the CLI has and only
// flags that command (or the program) accepts, so that a renamed or removed flag shows here.

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function markdownFiles(): string[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(root, "docs", f));
  return [join(root, "README.md"), ...docs];
}

/** Every `platform …` command line of a Markdown text: in code blocks (with their continuations) and inline code. */
export function platformCommands(text: string): string[] {
  const found: string[] = [];
  const blocks = [...text.matchAll(/^(```|~~~)[^\n]*\n([\s\S]*?)^\1[^\n]*$/gm)];
  for (const block of blocks) {
    const lines = block[2]!.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const start = /^\s*(?:\$\s+)?(?:[A-Z_]+=\S+\s+)*(?:\d+ [\d*]+ [\d*]+ [\d*]+ [\d*]+\s+)?platform\s(.*)$/.exec(
        lines[i]!,
      );
      // The start banner's first line is output, not a command.
      if (!start || start[1]!.startsWith("is listening")) continue;
      let command = `platform ${start[1]}`;
      // A line ending in `\`, or a synopsis whose next lines start with `[` or `--`, goes on.
      while (i + 1 < lines.length && (/\\\s*$/.test(command) || /^\s+(\[|--)/.test(lines[i + 1]!))) {
        command = `${command.replace(/\\\s*$/, "")} ${lines[++i]!.trim()}`;
      }
      found.push(command);
    }
  }
  const outside = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
  for (const m of outside.matchAll(/`(platform [^`\n]+)`/g)) found.push(m[1]!);
  return found;
}

function findCommand(parent: Command, word: string): Command | undefined {
  return parent.commands.find((c) => c.name() === word || c.aliases().includes(word));
}

/** What is wrong with one documented command line: an unknown command or flag; empty when none. */
function problems(program: Command, line: string): string[] {
  // A pipe, a list of commands, a redirection or a comment ends the command, outside the
  // brackets of a synopsis (`[--user U | --team T]`); a table's `\|` is an alternative.
  const words: string[] = [];
  let depth = 0;
  for (const token of line.replace(/\\\|/g, "|").split(/\s+/).slice(1)) {
    if (depth === 0 && /^(\||&&|\|\||;|>|>>|2>|2>>|<|&|#.*)$/.test(token)) break;
    depth += (token.match(/\[/g) ?? []).length - (token.match(/\]/g) ?? []).length;
    words.push(token);
  }
  const out: string[] = [];
  // The subcommands: each word may list alternatives (`get|set|delete`), every one a command.
  let commands: Command[] = [program];
  let w = 0;
  for (; w < words.length; w++) {
    const word = words[w]!.replace(/^[[(]|[\])]$/g, "");
    if (!/^[a-z][a-z-]*(\|[a-z][a-z-]*)*$/.test(word)) break;
    const next = commands.flatMap((c) => word.split("|").map((alt) => findCommand(c, alt)));
    if (next.some((c) => c === undefined)) {
      // Where a subcommand is due (a command with subcommands and no arguments of its own).
      if (commands.every((c) => c.commands.length > 0 && c.registeredArguments.length === 0)) {
        out.push(`unknown command "${word}"`);
      }
      break;
    }
    commands = next as Command[];
  }
  if (commands.length === 1 && commands[0] === program) return out;
  for (const token of words.slice(w)) {
    const flag = /^[[(]*(--?[a-zA-Z][a-zA-Z0-9-]*)/.exec(token)?.[1];
    if (!flag || /^-\d/.test(flag)) continue;
    for (const c of commands) {
      const accepted = [c, program].flatMap((k) => k.options.flatMap((o) => [o.long, o.short]));
      if (!accepted.includes(flag) && flag !== "--help" && flag !== "-h") {
        out.push(
          `"platform ${c.parent === program ? c.name() : `${c.parent?.name()} ${c.name()}`}" has no flag ${flag}`,
        );
      }
    }
  }
  return out;
}

describe("the platform commands README.md and docs/ show", () => {
  const program = buildProgram();

  it("name commands and flags the CLI accepts", () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const file of markdownFiles()) {
      for (const line of platformCommands(readFileSync(file, "utf8"))) {
        checked++;
        for (const p of problems(program, line)) wrong.push(`${relative(root, file)}: ${p}: ${line}`);
      }
    }
    assert.ok(checked >= 80, `found only ${checked} commands`);
    assert.deepEqual(wrong, []);
  });

  it("a flag the CLI does not accept is found", () => {
    assert.deepEqual(problems(program, "platform create accesskey ci --ttl 30d --lifetime 3"), [
      '"platform create accesskey" has no flag --lifetime',
    ]);
    assert.deepEqual(problems(program, "platform get secret NAME [-o json|yaml]"), []);
    assert.deepEqual(
      problems(
        program,
        "platform delete secret|accesskey NAME --ignore-store-read-error-with-cluster-breaking-potential",
      ),
      [],
    );
    assert.deepEqual(problems(program, "platform list users | head --lines 2"), []);
    assert.deepEqual(problems(program, "platform frobnicate --x"), ['unknown command "frobnicate"']);
  });

  it("finds commands in code blocks, their continuations and inline code", () => {
    const text = [
      "Run `platform whoami -o yaml` or:",
      "```sh",
      "PLATFORM_BOOTSTRAP_KEY=x platform start --data-dir d \\",
      "  --listen 127.0.0.1:1",
      "$ platform list teams",
      "```",
      "```text",
      "platform start [--data-dir DIR]",
      "               [--workers N]",
      "```",
    ].join("\n");
    assert.deepEqual(platformCommands(text), [
      "platform start --data-dir d  --listen 127.0.0.1:1",
      "platform list teams",
      "platform start [--data-dir DIR] [--workers N]",
      "platform whoami -o yaml",
    ]);
  });
});
