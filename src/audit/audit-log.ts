import { createWriteStream, type WriteStream } from "node:fs";
import { API_PREFIX } from "../api/object.js";
import type { UserInfo } from "../registry/request-context.js";

/** One line of the audit log. Built only from the URL and the identity: never a header or a body, so never a key or secret. */
export interface AuditEntry {
  time: string;
  user: string;
  impersonatedBy?: string;
  keyName?: string;
  verb: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  code: number;
  sourceAddress: string;
}

const GROUP_PATH = new RegExp(`^${API_PREFIX}/apis/[^/]+/[^/]+/(.*)$`);

/** Kubernetes verb and resource coordinates of a request, from its method and path alone. */
export function describeRequest(
  method: string,
  url: string,
): Pick<AuditEntry, "verb" | "resource" | "subresource" | "namespace" | "name"> {
  const [path = "", query = ""] = url.split("?");
  const m = GROUP_PATH.exec(path);
  if (!m) return { verb: method.toLowerCase(), resource: path };
  let parts = (m[1] ?? "").split("/").filter(Boolean);
  let namespace: string | undefined;
  if (parts[0] === "namespaces" && parts.length >= 3) {
    namespace = parts[1];
    parts = parts.slice(2);
  }
  const [resource = "", name, subresource] = parts;
  const watch = /(^|&)watch=(true|1)(&|$)/.test(query);
  const verb =
    method === "GET"
      ? name
        ? "get"
        : watch
          ? "watch"
          : "list"
      : method === "POST"
        ? "create"
        : method === "PUT"
          ? "update"
          : method === "PATCH"
            ? "patch"
            : method === "DELETE"
              ? name
                ? "delete"
                : "deletecollection"
              : method.toLowerCase();
  return { verb, resource, subresource, namespace, name };
}

/** JSON lines to a file (appended, mode 0600) or to stdout (`-`). */
export class AuditLog {
  private readonly out: WriteStream | NodeJS.WriteStream;
  private readonly callers = new WeakMap<object, UserInfo>();

  constructor(target: string) {
    this.out = target === "-" ? process.stdout : createWriteStream(target, { flags: "a", mode: 0o600 });
  }

  /** Remembers who made a request, for its line when the response is sent. */
  noteCaller(request: object, user: UserInfo): void {
    this.callers.set(request, user);
  }

  record(request: object, method: string, url: string, code: number, sourceAddress: string): void {
    const user = this.callers.get(request);
    const entry: AuditEntry = {
      time: new Date().toISOString(),
      user: user?.name ?? "",
      ...(user?.impersonatedBy ? { impersonatedBy: user.impersonatedBy } : {}),
      keyName: user?.credential?.name,
      ...describeRequest(method, url),
      code,
      sourceAddress,
    };
    this.out.write(`${JSON.stringify(entry)}\n`);
  }

  /** Writes one line built elsewhere (the cluster gateway's, src/gateway/gateway-audit.ts). */
  write(entry: object): void {
    this.out.write(`${JSON.stringify(entry)}\n`);
  }

  close(): Promise<void> {
    if (this.out === process.stdout) return Promise.resolve();
    return new Promise((resolve) => (this.out as WriteStream).end(resolve));
  }
}
