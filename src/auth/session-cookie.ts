/**
 * The name of the web console's session cookie (src/console/sessions.ts sets it). Here, below the
 * console, because the audit log names it as a credential a failed request tried.
 * `__Host-` makes the browser insist on Secure, Path=/ and no Domain, so no other host (or an
 * http page) can plant or read it.
 */
export const SESSION_COOKIE = "__Host-platform-session";
