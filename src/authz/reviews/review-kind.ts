import { type TObject, Type } from "@sinclair/typebox";
import { ObjectMetaSchema } from "../../api/schema/meta.js";
import type { ResourceType, Strategy } from "../../registry/resource-type.js";

/** What sets one review kind apart; the rest every review shares. */
export interface ReviewKindSpec {
  group: "authorization.k8s.io" | "authentication.k8s.io";
  kind: string;
  plural: string;
  description: string;
  spec: TObject | undefined;
  status: TObject;
  strategy?: Strategy;
  virtualCreate: NonNullable<ResourceType["virtualCreate"]>;
}

/**
 * A review kind (Kubernetes' authorization.k8s.io and authentication.k8s.io reviews): created
 * only, cluster-scoped, never stored. Its create goes through the Store's write pipeline
 * (`Store.createVirtual`), where "write" is computing the answer.
 */
export function reviewKind(spec: ReviewKindSpec): ResourceType {
  const apiVersion = `${spec.group}/v1`;
  return {
    group: spec.group,
    version: "v1",
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    shortNames: [],
    categories: [],
    namespaced: false,
    verbs: ["create"],
    hasStatus: false,
    description: spec.description,
    schema: Type.Object(
      {
        apiVersion: Type.Optional(Type.String({ description: `Always ${apiVersion}.` })),
        kind: Type.Optional(Type.String({ description: `Always ${spec.kind}.` })),
        metadata: Type.Optional(ObjectMetaSchema),
        ...(spec.spec ? { spec: Type.Optional(spec.spec) } : {}),
        status: Type.Optional(spec.status),
      },
      { description: spec.description, $id: `io.k8s.api.${spec.group.split(".")[0]}.v1.${spec.kind}` },
    ),
    strategy: spec.strategy ?? {},
    columns: [],
    virtualCreate: spec.virtualCreate,
  };
}

/** The metadata of every review answer: nothing is stored, so nothing is set (kube-apiserver's answer). */
export function reviewMetadata(): { creationTimestamp: null } {
  return { creationTimestamp: null };
}
