import type { Command } from "commander";
import { CliError } from "./errors.js";

/** Every command path ("", "get", "get secret"…) with its subcommand names and flags, from the program itself. */
function commandTree(root: Command): Map<string, { subs: string[]; flags: string[] }> {
  const tree = new Map<string, { subs: string[]; flags: string[] }>();
  const walk = (cmd: Command, path: string) => {
    const subs = cmd.commands.filter((c) => c.name() !== "help").flatMap((c) => [c.name(), ...c.aliases()]);
    const flags = cmd.options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f));
    tree.set(path, { subs, flags: [...flags, "--help"] });
    for (const c of cmd.commands) {
      for (const n of [c.name(), ...c.aliases()]) walk(c, path ? `${path} ${n}` : n);
    }
  };
  walk(root, "");
  return tree;
}

export function bashCompletion(root: Command): string {
  const cases = [...commandTree(root)]
    .map(([path, { subs, flags }]) => `    "${path}") words="${[...subs, ...flags].join(" ")}" ;;`)
    .join("\n");
  return `# bash completion for platform; load with: source <(platform completion bash)
_platform() {
  local cur path="" i w words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    case "\${path:+$path }$w" in
${[...commandTree(root).keys()]
  .filter((p) => p !== "")
  .map((p) => `      "${p}") path="${p}" ;;`)
  .join("\n")}
    esac
  done
  case "$path" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _platform platform
`;
}

export function zshCompletion(root: Command): string {
  return `#compdef platform
# zsh completion for platform; load with: source <(platform completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(root)}`;
}

export function registerCompletionCommand(program: Command): void {
  program
    .command("completion")
    .description("Print a shell completion script (bash or zsh)")
    .argument("<shell>", "bash or zsh")
    .addHelpText(
      "after",
      `
Examples:
  source <(platform completion bash)          # this shell
  platform completion bash > /etc/bash_completion.d/platform
  echo 'source <(platform completion zsh)' >> ~/.zshrc`,
    )
    .action((shell: string) => {
      if (shell === "bash") process.stdout.write(bashCompletion(program));
      else if (shell === "zsh") process.stdout.write(zshCompletion(program));
      else throw new CliError(`unsupported shell "${shell}": use bash or zsh`, 2);
    });
}
