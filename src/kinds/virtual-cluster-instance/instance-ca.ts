import type { KubeObject } from "../../api/object.js";
import type { KeptWrite } from "../../registry/resource-type.js";
import { isDeployed } from "./template-fields.js";

/**
 * Makes the certificate authority of a virtual cluster the platform creates (implemented by
 * src/virtualclusters/ca-store.ts, which keeps it encrypted where no resource serves it).
 */
export interface InstanceCaIssuer {
  /** A new CA for `instance`: the id its status records, and the kept entry written with the instance. */
  issue(instance: KubeObject): Promise<{ id: string; keep: KeptWrite }>;
}

/**
 * On create, an instance the platform deploys (from a template) gets a CA of its own, written in
 * the same transaction as the instance (Prepared.alongside): kube configs for it are signed
 * without the cluster, and the template hands the same CA to the virtual cluster (its
 * `<name>-certs` Secret). An imported instance uses the CA found on its cluster, and so does one
 * that only records a virtual cluster deployed by someone else (no template: the platform could
 * not hand that one its CA). An instance moved between projects arrives with its `status.caID`
 * and keeps that CA.
 */
export async function instanceCaOnCreate(obj: KubeObject, cas: InstanceCaIssuer): Promise<KeptWrite[]> {
  if (!isDeployed(obj) || typeof obj.status?.caID === "string") return [];
  const { id, keep } = await cas.issue(obj);
  obj.status = { ...(obj.status ?? {}), caID: id };
  return [keep];
}
