/**
 * What `platform start` prints once it serves: where it listens, where its files are, and how to
 * reach it (the banner alone goes to standard output; logs and notes go to standard error).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";

/** What the server listens on and where its files are, every path absolute. */
export function banner(
  server: { url: string; port: number; adminKubeconfig?: string; caPem?: string },
  host: string,
  dataDir: string,
): string {
  const all = host === "0.0.0.0" || host === "::" || host === "";
  const shown = host.includes(":") ? `[${host}]` : host;
  const lines = [
    `platform is listening on ${shown}:${server.port}${all ? " (every address of this machine)" : ""}`,
    `console:           ${server.url}/`,
    `API:               ${server.url}/kubernetes/management`,
    `data dir:          ${resolve(dataDir)}`,
    ...(server.caPem ? caLines(resolve(dataDir, "ca.crt"), server.url) : []),
    adminKeyLine(resolve(dataDir, "admin-access-key")),
  ];
  if (server.adminKubeconfig) {
    const kubeconfig = resolve(server.adminKubeconfig);
    lines.push(`admin kubeconfig:  ${kubeconfig}`, `try:  kubectl --kubeconfig ${kubeconfig} get users`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The server made its own certificate authority (no --tls-cert-file): nothing trusts it yet, so
 * say where it is and how to trust it, or the first curl or browser visit fails on TLS.
 */
function caLines(caFile: string, url: string): string[] {
  return [
    `CA certificate:    ${caFile}`,
    `  trust it:        curl --cacert ${caFile} ${url}/readyz`,
    `                   browsers, the OS: import it as a trusted authority (README.md, "Trusting the server's CA")`,
  ];
}

/**
 * Where the admin key is; a store that already had its admin (restored, migrated, another
 * replica's) makes none here, and a path to a file that is not there would send people looking.
 */
function adminKeyLine(file: string): string {
  if (existsSync(file)) return `admin access key:  ${file}`;
  return "admin access key:  none in this data dir (the store already had its admin: use its key, or `platform admin reset-key`)";
}

/** The single sign-on lines of the banner. */
export function ssoNotes(server: {
  url: string;
  sso?: { settings: { issuerUrl: string; redirectBaseUrl?: string } };
}): string {
  if (!server.sso) return "";
  const base = server.sso.settings.redirectBaseUrl ?? server.url;
  let text = `single sign-on with ${server.sso.settings.issuerUrl}; redirect URI: ${base}/auth/oidc/callback\n`;
  if (!server.sso.settings.redirectBaseUrl) {
    text += "  (set --oidc-redirect-base-url if browsers reach this server at another address)\n";
  }
  return text;
}
