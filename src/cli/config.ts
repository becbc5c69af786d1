import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./errors.js";

/** What `platform login` remembers. The CA is stored inline so the login survives moving the CA file. */
export interface LoginConfig {
  /** Base URL of the server, without the /kubernetes/management prefix. */
  server: string;
  accessKey: string;
  /** Name of the OwnedAccessKey behind accessKey (when the server told us). */
  accessKeyName?: string;
  /** True when `login` created accessKey as a Login-type key; `logout` deletes it then. */
  createdByLogin?: boolean;
  insecureSkipTLSVerify?: boolean;
  certificateAuthorityData?: string;
  /** Who the key authenticates as, for messages. */
  subject?: string;
}

export interface CliConfig {
  login?: LoginConfig;
}

/** `PLATFORM_CONFIG` overrides ~/.platform/config.json (tests and several logins side by side). */
export function configPath(): string {
  return process.env.PLATFORM_CONFIG || join(homedir(), ".platform", "config.json");
}

export function loadConfig(): CliConfig {
  const file = configPath();
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, "utf8")) as CliConfig;
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
}

/** Writes atomically with mode 0600: the file holds a bearer key. */
export function saveConfig(config: CliConfig): string {
  const file = configPath();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  // An existing file keeps its old mode through rename on some systems; make sure.
  chmodSync(file, 0o600);
  return file;
}

export function removeConfigLogin(): void {
  const file = configPath();
  const config = loadConfig();
  delete config.login;
  if (Object.keys(config).length === 0) rmSync(file, { force: true });
  else saveConfig(config);
}

/** The stored login, or a usage-style error telling how to log in. */
export function requireLogin(): LoginConfig {
  const login = loadConfig().login;
  if (!login) throw new CliError("not logged in: run `platform login URL --access-key KEY` first");
  return login;
}
