/**
 * A kubeconfig user's token file (`tokenFile`, as kubectl writes it, or `token-file`).
 * @kubernetes/client-node drops `tokenFile` (its user has no such field) and reads `token-file`
 * once, when it loads: a pod's ServiceAccount token, which the kubelet rotates, would be sent
 * as it was at start, or not at all. The raw YAML is read for these fields instead.
 */
import { dirname, resolve } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { parse } from "yaml";

interface RawUser {
  name?: unknown;
  user?: { tokenFile?: unknown; "token-file"?: unknown; token?: unknown };
}

/** The token file of each user of the kubeconfig `text` that names one and no inline token, by user name. */
export function tokenFilesOf(text: string): Map<string, string> {
  const files = new Map<string, string>();
  let doc: { users?: unknown };
  try {
    doc = (parse(text) ?? {}) as { users?: unknown };
  } catch {
    return files; // The kubeconfig loader reports what does not parse.
  }
  for (const entry of Array.isArray(doc.users) ? (doc.users as RawUser[]) : []) {
    const file = entry?.user?.tokenFile ?? entry?.user?.["token-file"];
    // An inline token wins, as kubectl has it.
    const inline = typeof entry?.user?.token === "string" && entry.user.token !== "";
    if (typeof entry?.name === "string" && typeof file === "string" && file !== "" && !inline)
      files.set(entry.name, file);
  }
  return files;
}

/**
 * Makes each user of `kc` (loaded from the file `path`) that names a token file, and no inline
 * token, use it the way in-cluster config does: as the `tokenFile` auth provider, which
 * upstreamFromKubeConfig reads again whenever the file changes. A relative path is relative to
 * the kubeconfig's directory, as kubectl reads it.
 */
export function useKubeConfigTokenFiles(kc: KubeConfig, path: string, text: string): void {
  const files = tokenFilesOf(text);
  if (files.size === 0) return;
  kc.users = kc.users.map((user) => {
    const file = files.get(user.name);
    if (!file) return user;
    // client-node put the token-file's content of load time in `token`: dropped, the file is the source.
    return {
      ...user,
      token: undefined,
      authProvider: { name: "tokenFile", config: { tokenFile: resolve(dirname(path), file) } },
    };
  });
}
