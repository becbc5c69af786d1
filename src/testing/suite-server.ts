import { after, before } from "node:test";
import type { ServerConfig } from "../app/start-server.js";
import { EtcdCluster } from "./etcd-cluster.js";
import { startTestServer, type TestServer } from "./test-server.js";

/** The server of a suite, and the one-member etcd cluster it stores in (none on SQLite). */
export interface SuiteServer<E extends EtcdCluster | undefined> {
  readonly server: TestServer;
  readonly etcd: E;
}

/**
 * Registers, in the suite being defined (or the file, at top level), hooks that start a test
 * server before its tests (on etcd: a one-member cluster first, the server storing in it) and
 * stop it after them (the server first, then etcd). Read `server` and `etcd` in tests and later
 * hooks, not while the suite is defined: they exist once the `before` hook has run.
 */
export function suiteServer(backend: "etcd", config?: Partial<ServerConfig>): SuiteServer<EtcdCluster>;
export function suiteServer(
  backend: "sqlite" | "etcd",
  config?: Partial<ServerConfig>,
): SuiteServer<EtcdCluster | undefined>;
export function suiteServer(
  backend: "sqlite" | "etcd",
  config: Partial<ServerConfig> = {},
): SuiteServer<EtcdCluster | undefined> {
  let server: TestServer | undefined;
  let etcd: EtcdCluster | undefined;
  before(async () => {
    if (backend === "etcd") etcd = await EtcdCluster.start(1);
    server = await startTestServer(etcd ? { storage: etcd.url, ...config } : config);
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });
  return {
    get server() {
      if (!server) throw new Error("the suite's server has not started (read it in a test or hook)");
      return server;
    },
    get etcd() {
      return etcd;
    },
  };
}
