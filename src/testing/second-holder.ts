import assert from "node:assert/strict";
import { encodeObject } from "../registry/codec.js";
import { isStorageError } from "../storage/errors.js";
import { GROUP_PATH, type TestServer } from "./test-server.js";

/** How often the rewrite is tried (each conflict is a controller's status write, which soon stops). */
const REWRITE_ATTEMPTS = 20;

/** A cluster name no test connects: an instance there deploys nothing. */
const NOT_CONNECTED = "not-connected";

/**
 * Stores a space or virtual cluster instance that holds a namespace another one holds already, as
 * an older version of the platform could: the API refuses it today with 409
 * (src/admission/namespace-claims.ts; checked here), so the controllers' own judgement of whose
 * the namespace is (src/controllers/spaces/namespace-claim.ts) is reached only by such objects.
 * It is created on a cluster the platform does not know (nothing is deployed for it meanwhile),
 * then its stored `spec.clusterRef` is rewritten to `cluster` and `held`, so that it has all else
 * a create gives it (finalizer, certificate authority).
 */
export async function storeSecondHolder(
  server: TestServer,
  resource: "spaceinstances" | "virtualclusterinstances",
  project: string,
  body: { metadata: { name: string }; spec: Record<string, unknown> },
  held: { cluster: string; namespace: string },
): Promise<void> {
  const url = `${GROUP_PATH}/namespaces/p-${project}/${resource}`;
  const ref = (clusterRef: Record<string, unknown>) => ({ ...body, spec: { ...body.spec, clusterRef } });
  const refused = await server.request("POST", url, { body: ref(held) });
  assert.equal(refused.status, 409, refused.text);
  const created = await server.request("POST", url, {
    body: ref({ cluster: NOT_CONNECTED, namespace: held.namespace }),
  });
  assert.equal(created.status, 201, created.text);
  const store = server.registry.store(resource);
  const key = store.key(`p-${project}`, body.metadata.name);
  // The controllers write its status meanwhile: read again on a conflict.
  for (let attempt = 0; attempt < REWRITE_ATTEMPTS; attempt++) {
    const kv = await store.storage.get(key);
    assert.ok(kv, "stored");
    const stored = JSON.parse(kv.value.toString("utf8"));
    stored.spec.clusterRef = { ...stored.spec.clusterRef, cluster: held.cluster, namespace: held.namespace };
    // A change of the spec, as the controllers see one.
    stored.metadata.generation = (stored.metadata.generation ?? 1) + 1;
    try {
      await store.storage.update(key, encodeObject(stored), kv.modRevision);
      return;
    } catch (err) {
      if (!isStorageError(err, "Conflict")) throw err;
    }
  }
  assert.fail(`${resource} ${project}/${body.metadata.name} kept changing under the rewrite`);
}
