import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { ApiClient, type Connection, type Json, normalizeServer } from "./api-client.js";
import { addOutputOption, apiPath, loggedInClient, outputOf } from "./common.js";
import { type LoginConfig, loadConfig, removeConfigLogin, requireLogin, saveConfig } from "./config.js";
import { CliError } from "./errors.js";
import { printJsonOrYaml, withSpinner } from "./output.js";
import {
  createSessionKey,
  DEFAULT_SESSION_TTL,
  deleteSessionKey,
  revokeReplacedSession,
  sessionTtlSeconds,
} from "./session-keys.js";
import { ssoLogin } from "./sso-login.js";

const SELF = { apiVersion: "management.platform/v1", kind: "Self", metadata: {} };

/** The options of `platform login`, as commander parses them. */
interface LoginOptions {
  accessKey?: string;
  insecureSkipTlsVerify?: boolean;
  certificateAuthority?: string;
  reuseKey?: boolean;
  sessionTtl?: string;
  sso?: boolean;
  browser?: boolean;
}

/** Who a Self response names, as "user alice" / "team ops" / "subject x". */
function subjectOfSelf(self: Json): string {
  const s = self?.status ?? {};
  if (s.user) return `user ${s.user}`;
  if (s.team) return `team ${s.team}`;
  return `subject ${s.subject ?? "?"}`;
}

export function registerLoginCommands(program: Command): void {
  program
    .command("login")
    .description(
      "Log in to a platform server with an access key. The key is checked, then a new Login-type access key is created for this session (it expires after --session-ttl unused) and stored in ~/.platform/config.json (mode 0600; PLATFORM_CONFIG overrides the path); the session key of the login it replaces is revoked, and `platform logout` deletes the new one again. The key you pass is not stored.",
    )
    .argument("<url>", "server URL, e.g. https://platform.example.com:8443")
    .option("--access-key <key>", "an access key (or set PLATFORM_ACCESS_KEY)")
    .option("--insecure-skip-tls-verify", "do not verify the server's certificate (test servers only)")
    .option(
      "--certificate-authority <file>",
      "PEM file of the CA that signed the server's certificate (<data-dir>/ca.crt)",
    )
    .option("--reuse-key", "store the given key itself instead of creating a Login key (logout then only forgets it)")
    .option(
      "--session-ttl <duration>",
      `how long the session key lasts unused, renewed on each use, e.g. 12h or 30d (default: ${DEFAULT_SESSION_TTL})`,
    )
    .option("--sso", "sign in with the server's identity provider in a browser (see docs/sso.md)")
    .option("--no-browser", "with --sso: only print the sign-in URL, do not open a browser")
    .addHelpText(
      "after",
      `
Examples:
  platform login https://localhost:8443 --access-key "$(cat data/admin-access-key)" --certificate-authority data/ca.crt
  PLATFORM_ACCESS_KEY=... platform login https://platform.example.com
  platform login https://platform.example.com --access-key KEY --session-ttl 12h
  platform login https://127.0.0.1:8443 --access-key KEY --insecure-skip-tls-verify
  platform login https://platform.example.com --sso`,
    )
    .action(async (url: string, opts: LoginOptions) => {
      const conn = loginConnection(url, opts);
      const login = opts.sso ? await loginWithSso(conn, opts) : await loginWithKey(conn, opts);
      await revokeReplacedSession(loadConfig().login, login);
      const file = saveConfig({ ...loadConfig(), login });
      process.stdout.write(`Logged in to ${login.server} as ${login.subject} (access key ${login.accessKeyName}).\n`);
      process.stderr.write(`Login stored in ${file}. Try: platform whoami\n`);
    });

  registerLogoutCommand(program);
  registerWhoamiCommand(program);
}

/** The server and TLS settings of a login, after checking the flags that exclude each other. */
function loginConnection(url: string, opts: LoginOptions): Connection {
  const key = opts.accessKey || process.env.PLATFORM_ACCESS_KEY;
  if (opts.sso && opts.accessKey) throw new CliError("--sso and --access-key exclude each other", 2);
  if (!key && !opts.sso) throw new CliError("--access-key KEY (or PLATFORM_ACCESS_KEY), or --sso, is required", 2);
  if (opts.sessionTtl !== undefined && (opts.sso || opts.reuseKey)) {
    throw new CliError(
      "--session-ttl applies to the session key a login creates: not with --reuse-key, nor with --sso (the server's --oidc-login-key-ttl sets that key's lifetime)",
      2,
    );
  }
  if (opts.insecureSkipTlsVerify && opts.certificateAuthority) {
    throw new CliError("--insecure-skip-tls-verify and --certificate-authority exclude each other", 2);
  }
  let ca: string | undefined;
  if (opts.certificateAuthority) {
    try {
      ca = readFileSync(String(opts.certificateAuthority), "utf8");
    } catch (err) {
      throw new CliError(`cannot read --certificate-authority: ${(err as Error).message}`);
    }
  }
  return {
    server: normalizeServer(url),
    accessKey: opts.sso ? undefined : key,
    insecureSkipTLSVerify: opts.insecureSkipTlsVerify === true || undefined,
    certificateAuthorityData: ca,
  };
}

/** `--sso`: like a key made by --access-key login, a Login key of this session, deleted by logout. */
async function loginWithSso(conn: Connection, opts: LoginOptions): Promise<LoginConfig> {
  const signedIn = await ssoLogin(conn, opts.browser !== false);
  return {
    ...conn,
    accessKey: signedIn.accessKey,
    accessKeyName: signedIn.accessKeyName,
    createdByLogin: true,
    subject: `user ${signedIn.user}`,
  };
}

/** `--access-key`: checks the key, then (unless --reuse-key) trades it for a session key of its own. */
async function loginWithKey(conn: Connection, opts: LoginOptions): Promise<LoginConfig> {
  const key = conn.accessKey;
  if (!key) throw new CliError("--access-key KEY (or PLATFORM_ACCESS_KEY) is required", 2);
  const ttl = opts.reuseKey ? undefined : sessionTtlSeconds(opts.sessionTtl);
  const given = new ApiClient(conn);
  const self = await withSpinner("checking the access key", given.post(apiPath("selves"), SELF));
  const login: LoginConfig = {
    ...conn,
    accessKey: key,
    accessKeyName: self.status?.accessKey,
    createdByLogin: false,
    subject: subjectOfSelf(self),
  };
  if (ttl === undefined) return login;
  // A session key of its own, so logout can revoke exactly this login and nothing else.
  const session = await createSessionKey(given, self.status?.accessKey, ttl);
  return session ? { ...login, accessKey: session.key, accessKeyName: session.name, createdByLogin: true } : login;
}

function registerLogoutCommand(program: Command): void {
  program
    .command("logout")
    .description("Delete the Login-type access key `platform login` created, and forget the login")
    .addHelpText("after", "\nExamples:\n  platform logout")
    .action(async () => {
      const login = requireLogin();
      try {
        await deleteSessionKey(login);
      } catch (err) {
        throw new CliError(
          `${(err as Error).message}\nThe login is kept so you can retry; remove ${process.env.PLATFORM_CONFIG || "~/.platform/config.json"} to forget it anyway.`,
        );
      }
      removeConfigLogin();
      process.stdout.write(`Logged out of ${login.server}.\n`);
    });
}

function registerWhoamiCommand(program: Command): void {
  addOutputOption(
    program
      .command("whoami")
      .description("Show who the stored login authenticates as")
      .addHelpText("after", "\nExamples:\n  platform whoami\n  platform whoami -o json"),
  ).action(async (opts: { output?: string }) => {
    const format = outputOf(opts);
    const client = loggedInClient();
    const self = await client.post(apiPath("selves"), SELF);
    if (format !== "table") {
      printJsonOrYaml(self, format);
      return;
    }
    const s = self.status ?? {};
    const lines = [
      `${subjectOfSelf(self)}`,
      `server:      ${client.conn.server}`,
      `access key:  ${s.accessKey ?? "?"} (${s.accessKeyType ?? "?"})`,
    ];
    if (s.teams?.length) lines.push(`teams:       ${s.teams.join(", ")}`);
    if (s.groups?.length) lines.push(`groups:      ${s.groups.join(", ")}`);
    process.stdout.write(`${lines.join("\n")}\n`);
  });
}
