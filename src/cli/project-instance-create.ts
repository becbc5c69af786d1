import type { Command } from "commander";
import { parseDuration } from "./accesskeys.js";
import type { Json } from "./api-client.js";
import { apiPath, loggedInClient, outputOf, projectNamespace } from "./common.js";
import { type WaitRules, waitForReady } from "./instance-wait.js";
import { printJsonOrYaml } from "./output.js";

/** The options of a `create` that waits for its instance to be Ready, as commander parses them. */
export interface CreateAndWaitOpts {
  project: string;
  wait: boolean;
  timeout: string;
  output?: string;
}

/** An instance kind `create` makes in a project and waits for. */
export interface CreatedInstanceKind extends WaitRules {
  /** The word messages and progress lines use: `vcluster`, `space`. */
  noun: string;
  /** The API resource: `virtualclusterinstances`, `spaceinstances`. */
  plural: string;
}

/** Adds `--no-wait` and `--timeout` to a `create` command that waits until its instance is Ready. */
export function addWaitOptions(command: Command): Command {
  return command
    .option("--no-wait", "return once created, without waiting for Ready")
    .option("--timeout <duration>", "how long to wait for Ready, e.g. 90s or 10m", "5m");
}

/**
 * Creates `body` in the project and, unless `--no-wait`, waits until it is Ready (instance-wait.ts).
 * A table output says it was created at once, so a wait that ends in an error still told the user
 * the instance exists; `-o json|yaml` prints the instance once Ready (with `--no-wait`, as created).
 */
export async function createAndWait(kind: CreatedInstanceKind, name: string, body: Json, opts: CreateAndWaitOpts) {
  const format = outputOf(opts);
  // Read before anything is sent: a bad duration is a usage error that creates nothing.
  const timeout = parseDuration(opts.timeout);
  const client = loggedInClient();
  const path = apiPath(kind.plural, undefined, projectNamespace(opts.project));
  let result = await client.post(path, body);
  if (format === "table") process.stdout.write(`${kind.noun} ${name} created in project ${opts.project}\n`);
  if (opts.wait)
    result = await waitForReady(client, `${path}/${encodeURIComponent(name)}`, `${kind.noun} ${name}`, timeout, kind);
  if (format !== "table") printJsonOrYaml(result, format);
}
