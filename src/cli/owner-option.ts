import type { Command } from "commander";
import type { Json } from "./api-client.js";

/** `--owner-team` of `create space` and `create vcluster`: who owns the instance when it is not you. */
export interface OwnerOpts {
  ownerTeam?: string;
}

export function addOwnerOption(command: Command): Command {
  return command.option(
    "--owner-team <team>",
    "a team that owns it (default: you; naming a team needs administer on it in the project)",
  );
}

/** The `spec.owner` the options ask for; none: the server makes the creator the owner. */
export function ownerChoice(opts: OwnerOpts): Json {
  return opts.ownerTeam ? { owner: { team: opts.ownerTeam } } : {};
}
