import type { Command } from "commander";
import { NAME_ARGUMENTS, NAME_FLAGS } from "./completion-names.js";
import { CliError } from "./errors.js";

/** Every command path ("", "get", "get secret"…) with its subcommand names and flags, from the program itself. */
function commandTree(root: Command): Map<string, { subs: string[]; flags: string[] }> {
  const tree = new Map<string, { subs: string[]; flags: string[] }>();
  const walk = (cmd: Command, path: string) => {
    const subs = cmd.commands
      .filter((c) => c.name() !== "help" && !c.name().startsWith("__"))
      .flatMap((c) => [c.name(), ...c.aliases()]);
    const flags = cmd.options.flatMap((o) => [o.long, o.short].filter((f): f is string => !!f));
    tree.set(path, { subs, flags: [...flags, "--help"] });
    for (const c of cmd.commands) {
      if (c.name().startsWith("__")) continue;
      for (const n of [c.name(), ...c.aliases()]) walk(c, path ? `${path} ${n}` : n);
    }
  };
  walk(root, "");
  return tree;
}

function bashCompletion(root: Command): string {
  const cases = [...commandTree(root)]
    .map(([path, { subs, flags }]) => `    "${path}") words="${[...subs, ...flags].join(" ")}" ;;`)
    .join("\n");
  const flagCases = Object.entries(NAME_FLAGS)
    .map(([flag, kind]) => `    ${flag}) kind=${kind} ;;`)
    .join("\n");
  const argCases = Object.entries(NAME_ARGUMENTS)
    .map(([path, kind]) => `      "${path}") kind=${kind} ;;`)
    .join("\n");
  return `# bash completion for platform; load with: source <(platform completion bash)
# Object names (clusters, projects, secrets, virtual clusters) come from the server of the login.
_platform() {
  local cur prev path="" i w words kind="" scope=""
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
${flagCases}
  esac
  if [[ -n "$kind" ]]; then
    COMPREPLY=($(compgen -W "$(platform __complete-names "$kind" 2>/dev/null)" -- "$cur"))
    return
  fi
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      -n|--namespace|-p|--project) scope="\${COMP_WORDS[i+1]}" ;;
    esac
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
  if [[ "$cur" != -* ]]; then
    case "$path" in
${argCases}
    esac
    [[ -n "$kind" ]] && words="$(platform __complete-names "$kind" "$scope" 2>/dev/null)"
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _platform platform
`;
}

function zshCompletion(root: Command): string {
  return `#compdef platform
# zsh completion for platform; load with: source <(platform completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(root)}`;
}

/** Fish: one `complete` line per command path, its subcommands, flags and (where they are) object names. */
function fishCompletion(root: Command): string {
  const tree = [...commandTree(root)].filter(([path]) => !path.startsWith("__"));
  const q = (t: string) => `'${t.replace(/'/g, "\\'")}'`;
  const lines: string[] = [];
  for (const [path, { subs, flags }] of tree) {
    const when = `-n "__platform_is ${q(path)}"`;
    if (subs.length) lines.push(`complete -c platform -f ${when} -a ${q(subs.join(" "))}`);
    for (const flag of flags) {
      const opt = flag.startsWith("--") ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`;
      const kind = NAME_FLAGS[flag];
      lines.push(
        `complete -c platform -f ${when} ${opt}${kind ? ` -r -a ${q(`(platform __complete-names ${kind} 2>/dev/null)`)}` : ""}`,
      );
    }
    const kind = NAME_ARGUMENTS[path];
    if (kind)
      lines.push(
        `complete -c platform -f ${when} -a ${q(`(platform __complete-names ${kind} (__platform_scope) 2>/dev/null)`)}`,
      );
  }
  return `# fish completion for platform; load with: platform completion fish | source
# (or save it as ~/.config/fish/completions/platform.fish)
set -g __platform_paths ${tree
    .map(([p]) => q(p))
    .filter((p) => p !== "''")
    .join(" ")}
function __platform_path
    set -l path
    for w in (commandline -opc)[2..-1]
        string match -q -- '-*' $w; and continue
        set -l next (string join ' ' $path $w)
        contains -- $next $__platform_paths; and set path $path $w
    end
    string join ' ' $path
end
function __platform_is
    set -l p (__platform_path)
    test "$p" = "$argv[1]"
end
function __platform_scope
    set -l words (commandline -opc)
    for i in (seq (count $words))
        if contains -- $words[$i] -n --namespace -p --project
            echo $words[(math $i + 1)]
            return
        end
    end
end
${lines.join("\n")}
`;
}

export function registerCompletionCommand(program: Command): void {
  program
    .command("completion")
    .description("Print a shell completion script (bash, zsh or fish); it completes commands, flags and object names")
    .argument("<shell>", "bash, zsh or fish")
    .addHelpText(
      "after",
      `
Examples:
  source <(platform completion bash)          # this shell
  platform completion bash > /etc/bash_completion.d/platform
  echo 'source <(platform completion zsh)' >> ~/.zshrc
  platform completion fish > ~/.config/fish/completions/platform.fish`,
    )
    .action((shell: string) => {
      if (shell === "bash") process.stdout.write(bashCompletion(program));
      else if (shell === "zsh") process.stdout.write(zshCompletion(program));
      else if (shell === "fish") process.stdout.write(fishCompletion(program));
      else throw new CliError(`unsupported shell "${shell}": use bash, zsh or fish`, 2);
    });
}
