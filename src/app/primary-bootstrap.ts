import { resolve } from "node:path";
import { bootstrapAdmin } from "../auth/bootstrap.js";
import { allResourceTypes } from "../kinds/index.js";
import { AdmissionChain } from "../registry/admission.js";
import { Registry } from "../registry/registry.js";
import { openStorage } from "../storage/factory.js";
import type { ServerConfig } from "./config.js";
import { loadKeys } from "./keys.js";

/**
 * What a first start creates once, done by the primary of `platform start --workers N` before it
 * forks: the data dir with its CA, serving certificate, encryption and signing keys, and the
 * admin user with its access key (written to the data dir). Workers started afterwards find all
 * of it and load it, as a restarted server does, instead of racing each other to create it.
 * The admin kubeconfig is written by the workers, which know the address they serve.
 */
export async function bootstrapBeforeWorkers(config: ServerConfig): Promise<void> {
  const dataDir = resolve(config.dataDir);
  const { cipher } = await loadKeys(config, dataDir);
  if (!config.storage) throw new Error("the primary's bootstrap needs the storage URL");
  const storage = await openStorage(config.storage);
  try {
    const refuse = (): never => {
      throw new Error("the bootstrap before forking workers issues no tokens");
    };
    // Only the admin user and its key are created here, as the system: no request admission runs.
    const kinds = allResourceTypes({
      cipher,
      secretDataReaders: { mayReadData: () => false },
      tokenIssuer: { issue: refuse, maxTtlSeconds: 0 },
    });
    const registry = new Registry(storage, kinds, new AdmissionChain([]));
    await bootstrapAdmin(registry, dataDir, config.bootstrapKey ?? process.env.PLATFORM_BOOTSTRAP_KEY);
  } finally {
    await storage.close();
  }
}
