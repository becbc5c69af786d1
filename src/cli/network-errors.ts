import { CliError } from "./errors.js";

const UNKNOWN_CA = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
]);

function codeOf(err: unknown): string | undefined {
  // undici wraps some socket errors: the system's code is then on the cause.
  const e = err as { code?: string; cause?: { code?: string }; name?: string };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return "TIMEOUT";
  const code = e?.cause?.code ?? e?.code;
  return code === "UND_ERR_CONNECT_TIMEOUT" ? "TIMEOUT" : code;
}

/** When a proxy is configured, the refusal may be the proxy's: say so. */
function proxyNote(): string {
  const proxy = process.env.HTTPS_PROXY ?? process.env.https_proxy;
  return proxy ? `; or the proxy ${proxy} (HTTPS_PROXY; NO_PROXY lists hosts reached directly)` : "";
}

/** A failed request as one sentence that says what to do, never a stack trace. */
export function networkError(where: string, err: unknown, timeoutMs: number): CliError {
  const code = codeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (code && UNKNOWN_CA.has(code)) {
    return new CliError(
      `cannot verify the certificate of ${where}: it is signed by a CA this client does not trust (${code}). Pass --certificate-authority FILE (the server's <data-dir>/ca.crt) to \`platform login\`, or for a test server --insecure-skip-tls-verify`,
    );
  }
  switch (code) {
    case "TIMEOUT":
      return new CliError(
        timeoutMs > 0
          ? `no answer from ${where} within ${timeoutMs / 1000} s (--request-timeout): is the address right, the server up, and no firewall or proxy (HTTPS_PROXY/NO_PROXY) in the way?`
          : `cannot reach ${where}: the host does not answer; check the address, and a firewall or proxy (HTTPS_PROXY/NO_PROXY) in the way`,
      );
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return new CliError(
        `cannot reach ${where}: the host does not answer (${code}); check the address, and a firewall or proxy (HTTPS_PROXY/NO_PROXY) in the way`,
      );
    case "ECONNREFUSED":
      return new CliError(`cannot reach ${where}: connection refused (is the server running?${proxyNote()})`);
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new CliError(`cannot reach ${where}: host not found${proxyNote()}`);
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return new CliError(
        `the certificate of ${where} is not for that host name (${message}); use the name or address the certificate was made for`,
      );
    case "CERT_HAS_EXPIRED":
      return new CliError(`the certificate of ${where} has expired`);
    case "ERR_SSL_WRONG_VERSION_NUMBER":
    case "EPROTO":
      return new CliError(`${where} does not speak HTTPS (${message}); check the port`);
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
      return new CliError(`cannot reach ${where}: the connection was closed (${message})`);
    default:
      return new CliError(`cannot reach ${where}: ${message}`);
  }
}
