/**
 * A kind of the oracle's own, for schema rules no kind of the platform uses yet (`maxItems`): the
 * same schema served by kube-apiserver as a CRD and checked by the platform's write pipeline (a
 * Store over SQLite), so that the two answers to one body can be compared whole.
 */
import { Type } from "@sinclair/typebox";
import type { KubeObject } from "../../api/object.js";
import { GROUP, VERSION } from "../../api/object.js";
import { objectSchema } from "../../api/schema/meta.js";
import { defineKind } from "../../kinds/define.js";
import { AdmissionChain } from "../../registry/admission.js";
import { Store } from "../../registry/store.js";
import { openSqliteStorage } from "../../storage/sqlite/sqlite-storage.js";

const KIND = "OracleProbe";
const PLURAL = "oracleprobes";
const DESCRIPTION = "A kind of the compatibility oracle's own.";

const ProbeSpec = Type.Object({
  users: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
  displayName: Type.Optional(Type.String()),
});

/** The collection path of the probe kind below its group version. */
export const PROBE_COLLECTION = PLURAL;

/** An object of the probe kind. */
export function probe(name: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: KIND, metadata: { name }, spec };
}

/** The probe kind as kube-apiserver serves it: a cluster-wide CRD whose spec has the platform's schema. */
export function probeCrd(): Record<string, unknown> {
  // The TypeBox schema is JSON Schema; its symbols (TypeBox's own marks) do not survive JSON.
  const spec = JSON.parse(JSON.stringify(ProbeSpec));
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: "Cluster",
      names: { plural: PLURAL, singular: KIND.toLowerCase(), kind: KIND },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec } } },
        },
      ],
    },
  };
}

/** The probe kind in the platform's write pipeline: a Store of its own, no admission plugins. */
export function probeStore(): Store {
  const rt = defineKind({
    kind: KIND,
    plural: PLURAL,
    singular: KIND.toLowerCase(),
    shortNames: [],
    namespaced: false,
    hasStatus: false,
    description: DESCRIPTION,
    schema: objectSchema(KIND, DESCRIPTION, ProbeSpec, undefined),
    columns: [],
    strategy: {},
  });
  return new Store(rt, { storage: openSqliteStorage(":memory:"), admission: new AdmissionChain([]) });
}
