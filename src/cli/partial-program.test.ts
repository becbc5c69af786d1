import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Command } from "commander";
import { buildProgram, commandOf } from "./main.js";

/** A command and everything under it as help shows it: arguments, flags, descriptions, subcommands. */
function helpTree(cmd: Command): string[] {
  return [cmd.helpInformation(), ...cmd.commands.flatMap(helpTree)];
}

const named = (program: Command, name: string) => program.commands.find((c) => c.name() === name);

/**
 * A command builds only the files of commands it needs (main.ts, COMMAND_FILES): each
 * top-level command must come out the same as in the whole program, or a command would lose a
 * subcommand or a flag that only the whole program has.
 */
describe("the program a command builds", () => {
  const whole = buildProgram();

  for (const top of whole.commands.map((c) => c.name())) {
    it(`${top}: the same as in the whole program`, () => {
      const partial = named(buildProgram(top), top);
      assert.ok(partial, `${top} is in the program built for it`);
      assert.deepEqual(helpTree(partial), helpTree(named(whole, top)!));
    });
  }

  it("platform list users builds the list commands and not the others (start's many flags)", () => {
    const names = buildProgram(commandOf(["node", "platform", "list", "users"])).commands.map((c) => c.name());
    assert.ok(names.includes("list"));
    assert.ok(!names.includes("start"), `built: ${names.join(", ")}`);
    assert.ok(names.length < whole.commands.length);
  });

  it("help, completion and an unknown command get the whole program", () => {
    const size = whole.commands.length;
    for (const argv of [[], ["help", "list"], ["completion", "bash"], ["lsit", "users"], ["--version"]]) {
      const command = commandOf(["node", "platform", ...argv]);
      assert.equal(buildProgram(command).commands.length, size, argv.join(" "));
    }
  });

  it("finds the command after the global flags", () => {
    assert.equal(commandOf(["node", "platform", "--request-timeout", "10s", "--debug", "list", "users"]), "list");
    assert.equal(commandOf(["node", "platform", "--request-timeout=10s", "whoami"]), "whoami");
    assert.equal(commandOf(["node", "platform", "--help"]), undefined);
  });
});
