/**
 * `etcd://host:2379[,host:2379...][?options]` (or `etcds://` for TLS with the system's trust
 * roots) → connection options. Query parameters:
 * - `cacert=PATH`: CA bundle that signed the etcd members' certificates (turns TLS on);
 * - `cert=PATH`, `key=PATH`: client certificate and key, for etcd's --client-cert-auth;
 * - `user=NAME`: etcd user; its password comes from `password-file=PATH` or the environment
 *   variable PLATFORM_ETCD_PASSWORD (a password in the URL itself is accepted but shows in `ps`);
 * - `revision-check-interval-ms=N`: under load, the least time between two revision checks of
 *   consistent reads (default 4; 0 checks every event-loop turn: lowest latency, most etcd calls);
 * - `max-receive-message-bytes=N`: the largest single message taken from etcd (default 64 MiB;
 *   grpc-unary.ts says why); a list page over it is read again in smaller pages, one object
 *   over it fails its call with RESOURCE_EXHAUSTED, a watch response over it (etcd splits large
 *   ones) restarts the watch stream;
 * - `transport=grpc`: accepted for URLs written for earlier versions, which could also send
 *   calls through etcd's JSON gateway; every call is gRPC now (client/etcd-client.ts).
 */
import { readFileSync } from "node:fs";
import type { EtcdStorageOptions } from "./etcd-storage.js";

const KNOWN = new Set([
  "cacert",
  "cert",
  "key",
  "user",
  "password",
  "password-file",
  "transport",
  "revision-check-interval-ms",
  "max-receive-message-bytes",
]);

export function parseEtcdUrl(url: string, env: NodeJS.ProcessEnv = process.env): EtcdStorageOptions {
  const match = /^(etcds?):\/\/([^?/]*)\/?(?:\?(.*))?$/i.exec(url);
  if (!match) throw new Error(`bad etcd storage URL ${url} (expected etcd://host:2379[,host:2379...][?cacert=...])`);
  const endpoints = match[2]!
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  if (endpoints.length === 0) throw new Error(`no etcd endpoints in storage URL ${url}`);
  for (const e of endpoints) {
    if (!/^[^:\s]+:\d+$/.test(e) && !/^\[[0-9a-f:]+\]:\d+$/i.test(e)) {
      throw new Error(`bad etcd endpoint "${e}" in ${url} (expected host:port)`);
    }
  }
  const params = new URLSearchParams(match[3] ?? "");
  for (const name of params.keys()) {
    if (!KNOWN.has(name)) throw new Error(`unknown etcd storage option "${name}" in ${url}`);
  }
  const file = (name: string): Buffer | undefined => {
    const path = params.get(name);
    return path ? readFileSync(path) : undefined;
  };
  const cert = file("cert");
  const key = file("key");
  if ((cert === undefined) !== (key === undefined))
    throw new Error(`etcd storage URL needs both cert= and key= (${url})`);
  const user = params.get("user") ?? undefined;
  const passwordFile = params.get("password-file");
  const password =
    params.get("password") ??
    (passwordFile ? readFileSync(passwordFile, "utf8").trim() : undefined) ??
    env.PLATFORM_ETCD_PASSWORD;
  if (user !== undefined && password === undefined) {
    throw new Error("etcd user given without a password (password-file= or PLATFORM_ETCD_PASSWORD)");
  }
  const ca = file("cacert");
  const transport = params.get("transport") ?? "grpc";
  if (transport !== "grpc") {
    throw new Error(
      `etcd storage option transport=${transport} in ${url}: every call goes over gRPC (the JSON gateway transport was removed; drop the option)`,
    );
  }
  const interval = params.get("revision-check-interval-ms");
  if (interval !== null && !/^\d{1,4}$/.test(interval)) {
    throw new Error(
      `etcd storage option revision-check-interval-ms=${interval} in ${url}: expected whole milliseconds (0-9999)`,
    );
  }
  const maxReceive = params.get("max-receive-message-bytes");
  if (
    maxReceive !== null &&
    (!/^\d{1,10}$/.test(maxReceive) || Number(maxReceive) < 1024 || Number(maxReceive) > 2 ** 32 - 1)
  ) {
    throw new Error(
      `etcd storage option max-receive-message-bytes=${maxReceive} in ${url}: expected a number of bytes from 1024 to 4294967295`,
    );
  }
  return {
    endpoints,
    ...(maxReceive !== null ? { maxReceiveMessageBytes: Number(maxReceive) } : {}),
    ...(interval !== null ? { revisionCheckIntervalMs: Number(interval) } : {}),
    ...(match[1]!.toLowerCase() === "etcds" ? { tls: true } : {}),
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(user !== undefined ? { user, password } : {}),
  };
}
