import { readFileSync } from "node:fs";
import { basename } from "node:path";
import type { Command } from "commander";
import type { ApiClient, Json } from "./api-client.js";
import {
  addOutputOption,
  apiPath,
  collect,
  loggedInClient,
  outputOf,
  PLATFORM_NAMESPACE,
  verbCommand,
} from "./common.js";
import { CliError } from "./errors.js";
import { type OutputFormat, printJsonOrYaml, printTable } from "./output.js";
import { addProjectOption, type SecretTarget, type SecretTargetOptions, secretTarget } from "./secret-target.js";
import {
  addUnsafeDeleteOption,
  deletedMessage,
  deleteWithOptions,
  UNSAFE_DELETE_FLAG,
  type UnsafeDeleteOpts,
} from "./unsafe-delete-flag.js";

const decode = (b64: string) => Buffer.from(b64, "base64");
const encode = (value: string | Buffer) => Buffer.from(value).toString("base64");

/**
 * NAME.KEY: the secret name ends at the first dot (data keys may contain dots). When no secret has that
 * name, the whole argument is tried as a name (secret names may contain dots too).
 */
async function fetchSecret(
  client: ApiClient,
  arg: string,
  target: SecretTarget,
): Promise<{ secret: Json; key?: string }> {
  const { plural, namespace } = target;
  const dot = arg.indexOf(".");
  if (dot <= 0) return { secret: await client.get(apiPath(plural, arg, namespace)) };
  try {
    return {
      secret: await client.get(apiPath(plural, arg.slice(0, dot), namespace)),
      key: arg.slice(dot + 1),
    };
  } catch (err) {
    if (!(err instanceof CliError) || err.status !== 404) throw err;
    try {
      return { secret: await client.get(apiPath(plural, arg, namespace)) };
    } catch {
      // Neither exists: the NAME.KEY reading is the usual one, so report that name.
      throw err;
    }
  }
}

function readFromFile(spec: string): [string, Buffer] {
  const eq = spec.indexOf("=");
  const [key, path] = eq > 0 ? [spec.slice(0, eq), spec.slice(eq + 1)] : [basename(spec), spec];
  try {
    return [key, readFileSync(path)];
  } catch (err) {
    throw new CliError(`--from-file ${spec}: ${(err as Error).message}`);
  }
}

function literal(spec: string): [string, string] {
  const eq = spec.indexOf("=");
  if (eq <= 0) throw new CliError(`--from-literal must be KEY=VALUE, got "${spec}"`, 2);
  return [spec.slice(0, eq), spec.slice(eq + 1)];
}

/** `NAME.KEY VALUE` (the name ends at the first dot) or `NAME KEY VALUE`. */
export function setTarget(target: string, second: string, third: string | undefined): [string, string, string] {
  if (third !== undefined) return [target, second, third];
  const dot = target.indexOf(".");
  if (dot <= 0 || dot === target.length - 1) {
    throw new CliError(`set secret takes NAME.KEY VALUE (or NAME KEY VALUE), got "${target}"`, 2);
  }
  return [target.slice(0, dot), target.slice(dot + 1), second];
}

const nsOption = (cmd: Command) =>
  cmd.option("-n, --namespace <namespace>", "namespace of the shared secret", PLATFORM_NAMESPACE);

export function registerSecretCommands(program: Command): void {
  registerGetSecret(program);
  registerCreateSecret(program);
  registerSetSecret(program);
  registerDeleteSecret(program);
}

function registerGetSecret(program: Command): void {
  const get = verbCommand(program, "get", "Show one object");
  addOutputOption(
    addProjectOption(
      nsOption(
        get
          .command("secret")
          .description(
            "Print a shared secret's value, decoded: NAME.KEY prints that key's value as is (a newline is added only on a terminal); NAME alone prints every key",
          )
          .argument("<name[.key]>", "secret name, optionally .KEY"),
      ),
    ),
  )
    .addHelpText(
      "after",
      `
Examples:
  platform get secret db.password
  export PGPASSWORD="$(platform get secret db.password)"
  platform get secret db -o yaml
  platform get secret team-token -n p-web
  platform get secret db.password --project web`,
    )
    .action(getSecret);
}

async function getSecret(
  arg: string,
  opts: SecretTargetOptions & { output?: string },
  command: Command,
): Promise<void> {
  const format = outputOf(opts);
  const target = secretTarget(opts, command);
  const { secret, key } = await fetchSecret(loggedInClient(), arg, target);
  const data: Record<string, string> = secret.spec?.data ?? {};
  const name = `${target.noun} ${target.namespace}/${secret.metadata.name}`;
  if (key !== undefined) printSecretKey(name, data, key, format);
  else printSecretData(name, data, format);
}

/** One key's value as is: a script reading it gets the exact bytes (a newline only on a terminal). */
function printSecretKey(name: string, data: Record<string, string>, key: string, format: OutputFormat): void {
  const value = data[key];
  if (value === undefined) {
    const keys = Object.keys(data);
    throw new CliError(
      `${name} has no key "${key}"${keys.length ? ` (keys: ${keys.join(", ")})` : " (it has no data)"}`,
    );
  }
  const text = decode(value);
  if (format !== "table") printJsonOrYaml({ [key]: text.toString("utf8") }, format);
  else process.stdout.write(process.stdout.isTTY ? `${text.toString("utf8")}\n` : text);
}

function printSecretData(name: string, data: Record<string, string>, format: OutputFormat): void {
  const decoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, decode(v).toString("utf8")]));
  if (format !== "table") printJsonOrYaml(decoded, format);
  else
    printTable(
      ["Key", "Value"],
      Object.entries(decoded).map(([k, v]) => [k, v]),
      `${name} has no data`,
    );
}

function registerCreateSecret(program: Command): void {
  const create = verbCommand(program, "create", "Create an object");
  nsOption(
    create
      .command("secret")
      .description("Create a shared secret from literal values and files")
      .argument("<name>", "secret name")
      .option("--from-literal <key=value>", "a data key and its value (repeatable)", collect, [])
      .option(
        "--from-file <[key=]path>",
        "a data key read from a file; the key defaults to the file name (repeatable)",
        collect,
        [],
      )
      .option("--description <text>", "description of the secret"),
  )
    .addHelpText(
      "after",
      `
Examples:
  platform create secret db --from-literal username=app --from-literal password=s3cret
  platform create secret tls --from-file tls.crt=./server.crt --from-file ./server.key`,
    )
    .action(createSecret);
}

async function createSecret(
  name: string,
  opts: { namespace: string; fromLiteral: string[]; fromFile: string[]; description?: string },
): Promise<void> {
  const data: Record<string, string> = {};
  for (const spec of opts.fromLiteral) {
    const [k, v] = literal(spec);
    data[k] = encode(v);
  }
  for (const spec of opts.fromFile) {
    const [k, v] = readFromFile(spec);
    data[k] = encode(v);
  }
  const created = await loggedInClient().post(apiPath("sharedsecrets", undefined, opts.namespace), {
    apiVersion: "management.platform/v1",
    kind: "SharedSecret",
    metadata: { name },
    spec: { data, ...(opts.description ? { description: opts.description } : {}) },
  });
  const count = Object.keys(data).length;
  process.stdout.write(
    `sharedsecret ${opts.namespace}/${created.metadata.name} created (${count} ${count === 1 ? "key" : "keys"})\n`,
  );
}

function registerSetSecret(program: Command): void {
  const set = verbCommand(program, "set", "Set a value");
  addProjectOption(
    nsOption(
      set
        .command("secret")
        .description(
          "Set one key of a shared secret (created when missing): NAME.KEY VALUE, the shape `get secret NAME.KEY` reads (the name ends at the first dot; a name with dots takes the form NAME KEY VALUE); VALUE - reads standard input",
        )
        .argument("<name.key>", "secret name and data key (or the name, with KEY VALUE after it)")
        .argument("<value>", "the value, or - to read it from standard input")
        .argument("[value]", "the value, when the name and key were given apart"),
    ),
  )
    .addHelpText(
      "after",
      `
Examples:
  platform set secret db.password s3cret
  printf %s "$TOKEN" | platform set secret ci.token -
  platform set secret my.dotted.name password s3cret
  platform set secret api.token s3cret --project web`,
    )
    .action(setSecret);
}

async function setSecret(
  arg: string,
  second: string,
  third: string | undefined,
  opts: SecretTargetOptions,
  command: Command,
): Promise<void> {
  const [name, key, value] = setTarget(arg, second, third);
  const { plural, kind, namespace } = secretTarget(opts, command);
  const client = loggedInClient();
  const encoded = encode(value === "-" ? readFileSync(0) : value);
  const singular = kind.toLowerCase();
  try {
    // A merge patch touches only this key, so concurrent writers of other keys are not lost.
    await client.patch(apiPath(plural, name, namespace), { spec: { data: { [key]: encoded } } });
    process.stdout.write(`${singular} ${namespace}/${name}: key ${key} set\n`);
  } catch (err) {
    if (!(err instanceof CliError) || err.status !== 404) throw err;
    await client.post(apiPath(plural, undefined, namespace), {
      apiVersion: "management.platform/v1",
      kind,
      metadata: { name },
      spec: { data: { [key]: encoded } },
    });
    process.stdout.write(`${singular} ${namespace}/${name} created with key ${key}\n`);
  }
}

function registerDeleteSecret(program: Command): void {
  const del = verbCommand(program, "delete", "Delete an object");
  addUnsafeDeleteOption(
    nsOption(del.command("secret").description("Delete a shared secret").argument("<name>", "secret name")),
  )
    .addHelpText(
      "after",
      `\nExamples:\n  platform delete secret db\n  platform delete secret token -n p-web\n  platform delete secret db ${UNSAFE_DELETE_FLAG}   # corrupt: its value cannot be read`,
    )
    .action(async (name: string, opts: { namespace: string } & UnsafeDeleteOpts) => {
      await deleteWithOptions(loggedInClient(), apiPath("sharedsecrets", name, opts.namespace), opts);
      process.stdout.write(deletedMessage(`sharedsecret ${opts.namespace}/${name}`, opts));
    });
}
