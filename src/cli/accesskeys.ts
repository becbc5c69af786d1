import type { Command } from "commander";
import { type Json, TABLE_ACCEPT } from "./api-client.js";
import { addOutputOption, apiPath, collect, loggedInClient, outputOf, verbCommand } from "./common.js";
import { CliError } from "./errors.js";
import { printJsonOrYaml, printServerTable } from "./output.js";
import {
  addUnsafeDeleteOption,
  deletedMessage,
  deleteWithOptions,
  type UnsafeDeleteOpts,
} from "./unsafe-delete-flag.js";

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 };

/** `30d`, `12h`, `1h30m`, `90` (seconds) → seconds; 0 means no expiry. */
export function parseDuration(value: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  const re = /(\d+)([smhdwy])/g;
  let total = 0;
  let consumed = 0;
  for (const m of value.matchAll(re)) {
    total += Number(m[1]) * (UNITS[m[2] ?? "s"] ?? 1);
    consumed += m[0].length;
  }
  if (consumed === 0 || consumed !== value.length) {
    throw new CliError(`not a duration: "${value}" (use e.g. 90s, 45m, 12h, 30d, 1h30m)`, 2);
  }
  return total;
}

/** The options of `platform create accesskey`, as commander parses them. */
interface CreateAccessKeyOptions {
  user?: string;
  team?: string;
  ttl?: string;
  expireAfter?: string;
  scopeProject: string[];
  allowCli?: boolean;
  description?: string;
  output?: string;
}

export function registerAccessKeyCommands(program: Command): void {
  registerCreateAccessKey(program);
  registerListAccessKeys(program);
  registerDeleteAccessKey(program);
}

function registerCreateAccessKey(program: Command): void {
  const create = verbCommand(program, "create", "Create an object");
  addOutputOption(
    create
      .command("accesskey")
      .description(
        "Create an access key and print it once (the server keeps only its hash). The key goes to standard output, the rest to standard error, so KEY=$(platform create accesskey ci) works",
      )
      .argument("[name]", "name of the key (generated when omitted)")
      .option("--user <user>", "make the key for this user (default: yourself)")
      .option("--team <team>", "make the key for this team")
      .option("--ttl <duration>", "lifetime, e.g. 12h or 30d (default: no expiry)")
      .option("--expire-after <duration>", "the same as --ttl")
      .option("--scope-project <project>", "allow the key only in this project (repeatable)", collect, [])
      .option("--allow-cli", "with a scope: also allow the read-only requests the platform CLI needs")
      .option("--description <text>", "what the key is for"),
  )
    .addHelpText(
      "after",
      `
Examples:
  platform create accesskey ci-deploy --ttl 30d
  platform create accesskey --team ops --scope-project web --allow-cli
  KEY=$(platform create accesskey) && echo "$KEY" > key.txt`,
    )
    .action(createAccessKey);
}

async function createAccessKey(name: string | undefined, opts: CreateAccessKeyOptions): Promise<void> {
  const format = outputOf(opts);
  if (opts.user && opts.team) throw new CliError("--user and --team exclude each other", 2);
  if (opts.expireAfter !== undefined) {
    if (opts.ttl !== undefined) throw new CliError("--ttl and --expire-after are one flag: give one", 2);
    opts.ttl = opts.expireAfter;
  }
  const created = await loggedInClient().post(apiPath("ownedaccesskeys"), {
    apiVersion: "management.platform/v1",
    kind: "OwnedAccessKey",
    metadata: name ? { name } : { generateName: "key-" },
    spec: accessKeySpec(opts),
  });
  if (format !== "table") printJsonOrYaml(created, format);
  else printCreatedKey(created, opts.ttl);
}

/** The new key's spec: only what the flags set, so the server's defaults apply to the rest. */
function accessKeySpec(opts: CreateAccessKeyOptions): Json {
  const scope: Record<string, unknown> = {};
  if (opts.scopeProject.length) scope.projects = opts.scopeProject.map((project) => ({ project }));
  if (opts.allowCli) scope.allowPlatformCli = true;
  return {
    type: "User",
    ...(opts.user ? { user: opts.user } : {}),
    ...(opts.team ? { team: opts.team } : {}),
    ...(opts.ttl !== undefined ? { ttl: parseDuration(opts.ttl) } : {}),
    ...(Object.keys(scope).length ? { scope } : {}),
    ...(opts.description ? { description: opts.description } : {}),
  };
}

/** The key alone on standard output (for `KEY=$(…)`), what it is on standard error. */
function printCreatedKey(created: Json, ttl: string | undefined): void {
  const s = created.spec ?? {};
  const owner = s.user ? `user ${s.user}` : s.team ? `team ${s.team}` : `subject ${s.subject}`;
  process.stderr.write(
    `access key ${created.metadata.name} created for ${owner}${s.ttl ? ` (expires in ${ttl})` : ""}. It is shown only now:\n`,
  );
  process.stdout.write(`${s.key}\n`);
}

function registerListAccessKeys(program: Command): void {
  const list = verbCommand(program, "list", "List objects");
  addOutputOption(
    list
      .command("accesskeys")
      .alias("accesskey")
      .description("List access keys you may see (your own; every key for an admin)")
      .option("--user <user>", "only the keys of this user")
      .option("--team <team>", "only the keys of this team"),
  )
    .addHelpText("after", "\nExamples:\n  platform list accesskeys\n  platform list accesskeys --user alice -o yaml")
    .action(listAccessKeys);
}

async function listAccessKeys(opts: { user?: string; team?: string; output?: string }): Promise<void> {
  const format = outputOf(opts);
  if (opts.user && opts.team) throw new CliError("--user and --team exclude each other", 2);
  const fieldSelector = opts.user ? `spec.user=${opts.user}` : opts.team ? `spec.team=${opts.team}` : undefined;
  const result = await loggedInClient().get(apiPath("ownedaccesskeys"), {
    query: { fieldSelector },
    accept: format === "table" ? TABLE_ACCEPT : "application/json",
  });
  if (format !== "table") printJsonOrYaml(result, format);
  else printServerTable(result, "No access keys found.");
}

function registerDeleteAccessKey(program: Command): void {
  const del = verbCommand(program, "delete", "Delete an object");
  addUnsafeDeleteOption(
    del.command("accesskey").description("Delete (revoke) an access key").argument("<name>", "name of the key"),
  )
    .addHelpText("after", "\nExamples:\n  platform delete accesskey ci-deploy")
    .action(async (name: string, opts: UnsafeDeleteOpts) => {
      await deleteWithOptions(loggedInClient(), apiPath("ownedaccesskeys", name), opts);
      process.stdout.write(deletedMessage(`accesskey ${name}`, opts));
    });
}
