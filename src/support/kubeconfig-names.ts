/**
 * Names of the kubeconfig entries (cluster, user, context) the CLI and the server write. Each
 * carries the platform server it belongs to, so the entries of two servers never share a name: a
 * kubeconfig merging both keeps each server's credentials going to that server only.
 */

/** `host:port` of a server URL (the port always spelled out), plus its path when it has one. */
export function serverTag(serverUrl: string): string {
  const url = new URL(serverUrl);
  const port = url.port || (url.protocol === "http:" ? "80" : "443");
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.hostname}:${port}${path}`;
}

/** `base@host:port`, e.g. `platform@platform.example.com:8443`. */
export function perServerName(base: string, serverUrl: string): string {
  return `${base}@${serverTag(serverUrl)}`;
}
