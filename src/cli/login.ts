import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { Command } from "commander";
import { ApiClient, type Connection, type Json, normalizeServer } from "./api-client.js";
import { addOutputOption, apiPath, loggedInClient, outputOf } from "./common.js";
import { type LoginConfig, loadConfig, removeConfigLogin, requireLogin, saveConfig } from "./config.js";
import { CliError } from "./errors.js";
import { printJsonOrYaml, withSpinner } from "./output.js";
import { ssoLogin } from "./sso-login.js";

const SELF = { apiVersion: "management.platform/v1", kind: "Self", metadata: {} };

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
      "Log in to a platform server with an access key. The key is checked, then a new Login-type access key is created for this session and stored in ~/.platform/config.json (mode 0600; PLATFORM_CONFIG overrides the path); `platform logout` deletes it again. The key you pass is not stored.",
    )
    .argument("<url>", "server URL, e.g. https://platform.example.com:8443")
    .option("--access-key <key>", "an access key (or set PLATFORM_ACCESS_KEY)")
    .option("--insecure-skip-tls-verify", "do not verify the server's certificate (test servers only)")
    .option(
      "--certificate-authority <file>",
      "PEM file of the CA that signed the server's certificate (<data-dir>/ca.crt)",
    )
    .option("--reuse-key", "store the given key itself instead of creating a Login key (logout then only forgets it)")
    .option("--sso", "sign in with the server's identity provider in a browser (see docs/sso.md)")
    .option("--no-browser", "with --sso: only print the sign-in URL, do not open a browser")
    .addHelpText(
      "after",
      `
Examples:
  platform login https://localhost:8443 --access-key "$(cat data/admin-access-key)" --certificate-authority data/ca.crt
  PLATFORM_ACCESS_KEY=... platform login https://platform.example.com
  platform login https://127.0.0.1:8443 --access-key KEY --insecure-skip-tls-verify
  platform login https://platform.example.com --sso`,
    )
    .action(async (url: string, opts: Record<string, string | boolean | undefined>) => {
      const key = (opts.accessKey as string | undefined) || process.env.PLATFORM_ACCESS_KEY;
      if (opts.sso && opts.accessKey) throw new CliError("--sso and --access-key exclude each other", 2);
      if (!key && !opts.sso) throw new CliError("--access-key KEY (or PLATFORM_ACCESS_KEY), or --sso, is required", 2);
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
      const conn: Connection = {
        server: normalizeServer(url),
        accessKey: key,
        insecureSkipTLSVerify: opts.insecureSkipTlsVerify === true || undefined,
        certificateAuthorityData: ca,
      };
      if (opts.sso) {
        const signedIn = await ssoLogin(conn, opts.browser !== false);
        // Like a key made by --access-key login: a Login key of this session, deleted by logout.
        const login: LoginConfig = {
          ...conn,
          accessKey: signedIn.accessKey,
          accessKeyName: signedIn.accessKeyName,
          createdByLogin: true,
          subject: `user ${signedIn.user}`,
        };
        const file = saveConfig({ ...loadConfig(), login });
        process.stdout.write(`Logged in to ${login.server} as ${login.subject} (access key ${login.accessKeyName}).\n`);
        process.stderr.write(`Login stored in ${file}. Try: platform whoami\n`);
        return;
      }
      if (!key) throw new CliError("--access-key KEY (or PLATFORM_ACCESS_KEY) is required", 2);
      const given = new ApiClient(conn);
      const self = await withSpinner("checking the access key", given.post(apiPath("selves"), SELF));
      let login: LoginConfig = {
        ...conn,
        accessKey: key,
        accessKeyName: self.status?.accessKey,
        createdByLogin: false,
        subject: subjectOfSelf(self),
      };
      if (!opts.reuseKey) {
        // A session key of its own, so logout can revoke exactly this login and nothing else;
        // it keeps the given key's scope, so it never allows more than that key.
        let scope: unknown;
        if (self.status?.accessKey) {
          const original = await given.get(apiPath("ownedaccesskeys", self.status.accessKey)).catch(() => undefined);
          scope = original?.spec?.scope;
        }
        const created = await given
          .post(apiPath("ownedaccesskeys"), {
            apiVersion: "management.platform/v1",
            kind: "OwnedAccessKey",
            metadata: { generateName: "login-" },
            spec: {
              type: "Login",
              displayName: `platform login from ${hostname()}`,
              description: `Created by \`platform login\` with key ${self.status?.accessKey ?? "?"}; deleted by \`platform logout\`.`,
              ...(scope ? { scope } : {}),
            },
          })
          // A key that may not create keys (a project-scoped CI key) logs in as itself.
          .catch((err: unknown) => {
            if (!/forbidden/i.test(String((err as Error)?.message))) throw err;
            process.stderr.write(
              "warning: this key may not create a session key; storing it as given (logout will only forget it)\n",
            );
            return undefined;
          });
        if (created)
          login = { ...login, accessKey: created.spec.key, accessKeyName: created.metadata.name, createdByLogin: true };
      }
      const file = saveConfig({ ...loadConfig(), login });
      process.stdout.write(`Logged in to ${login.server} as ${login.subject} (access key ${login.accessKeyName}).\n`);
      process.stderr.write(`Login stored in ${file}. Try: platform whoami\n`);
    });

  program
    .command("logout")
    .description("Delete the Login-type access key `platform login` created, and forget the login")
    .addHelpText("after", "\nExamples:\n  platform logout")
    .action(async () => {
      const login = requireLogin();
      if (login.createdByLogin && login.accessKeyName) {
        try {
          await new ApiClient(login).delete(apiPath("ownedaccesskeys", login.accessKeyName));
        } catch (err) {
          // Already gone or already refused: nothing left to revoke on the server.
          if (!(err instanceof CliError) || (err.status !== 404 && err.status !== 401)) {
            throw new CliError(
              `${(err as Error).message}\nThe login is kept so you can retry; remove ${process.env.PLATFORM_CONFIG || "~/.platform/config.json"} to forget it anyway.`,
            );
          }
        }
      }
      removeConfigLogin();
      process.stdout.write(`Logged out of ${login.server}.\n`);
    });

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
