import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiClient, type Connection } from "./api-client.js";
import { CliError } from "./errors.js";

/** How long the CLI waits for the browser to come back. */
const WAIT_MS = 5 * 60 * 1000;

export interface SsoLoginResult {
  accessKey: string;
  accessKeyName: string;
  user: string;
}

/**
 * `platform login URL --sso`: a loopback listener on 127.0.0.1 (random port) receives a one-time
 * code from the browser after the sign-in; the CLI exchanges code and its own verifier for the
 * key over HTTPS. The key never travels in a URL, and a code is useless without the verifier.
 */
export async function ssoLogin(conn: Connection, openBrowser: boolean): Promise<SsoLoginResult> {
  if (!conn.server.startsWith("https://")) throw new CliError("--sso needs an https:// server URL", 2);
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const state = randomBytes(24).toString("base64url");
  const loopback = await listenLoopback(state);
  try {
    const url = new URL(`${conn.server}/auth/oidc/login`);
    url.search = new URLSearchParams({
      cli_port: String(loopback.port),
      cli_challenge: challenge,
      cli_state: state,
    }).toString();
    process.stderr.write(`Sign in in your browser: ${url.href}\n`);
    if (openBrowser) launchBrowser(url.href);
    const code = await loopback.code;
    const client = new ApiClient({ ...conn, accessKey: undefined });
    return await client.post<SsoLoginResult>("/auth/oidc/token", { code, verifier });
  } finally {
    loopback.close();
  }
}

interface Loopback {
  port: number;
  code: Promise<string>;
  close(): void;
}

async function listenLoopback(state: string): Promise<Loopback> {
  let settle: { resolve: (code: string) => void; reject: (err: Error) => void } | undefined;
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const given = url.searchParams.get("code");
    // Only the redirect of this login (its state) counts; anything else is ignored.
    if (url.pathname !== "/callback" || url.searchParams.get("state") !== state || !given) {
      res.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end("Not this login's redirect.\n");
      return;
    }
    res
      .writeHead(200, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" })
      .end("Signed in. You can close this window and return to the terminal.\n");
    settle?.resolve(given);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const timer = setTimeout(() => settle?.reject(new CliError("no sign-in within 5 minutes")), WAIT_MS);
  return {
    port: (server.address() as AddressInfo).port,
    code,
    close() {
      clearTimeout(timer);
      server.closeAllConnections();
      server.close();
    },
  };
}

/** xdg-open (Linux) or open (macOS) when there; otherwise the printed URL is the way. */
function launchBrowser(url: string): void {
  const opener = process.platform === "darwin" ? "open" : "xdg-open";
  const child = spawn(opener, [url], { stdio: "ignore", detached: true });
  child.on("error", () => undefined);
  child.unref();
}
