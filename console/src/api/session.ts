import { request, setCsrfToken } from "./client";

export interface SessionInfo {
  csrfToken: string;
  user: { name: string; kind: string };
}

export async function currentSession(): Promise<SessionInfo | undefined> {
  try {
    const s = await request<SessionInfo>("GET", "/console/api/session");
    setCsrfToken(s.csrfToken);
    return s;
  } catch {
    return undefined;
  }
}

/** The key goes to the server once, in this request body; the page keeps only the CSRF token. */
export async function signIn(accessKey: string): Promise<SessionInfo> {
  const s = await request<SessionInfo>("POST", "/console/api/session", { body: { accessKey } });
  setCsrfToken(s.csrfToken);
  return s;
}

export async function signOut(): Promise<void> {
  await request("DELETE", "/console/api/session");
  setCsrfToken("");
}

export async function consoleConfig(): Promise<{ sso: boolean }> {
  return request("GET", "/console/api/config");
}
