import { type TObject, type TProperties, Type } from "@sinclair/typebox";

/**
 * Schemas shared by every kind. Descriptions are what `kubectl explain` prints,
 * so they are written for users.
 */

const StringMap = (description: string) =>
  Type.Record(Type.String(), Type.String(), { description, additionalProperties: false });

const OwnerReferenceSchema = Type.Object(
  {
    apiVersion: Type.String({ description: "API version of the referent." }),
    kind: Type.String({ description: "Kind of the referent." }),
    name: Type.String({ description: "Name of the referent." }),
    uid: Type.String({ description: "UID of the referent." }),
    controller: Type.Optional(
      Type.Boolean({ description: "If true, this reference points to the managing controller. At most one." }),
    ),
    blockOwnerDeletion: Type.Optional(
      Type.Boolean({
        description:
          "If true and the owner has the foregroundDeletion finalizer, the owner cannot be removed until this reference is removed. Needs delete permission on the owner.",
      }),
    ),
  },
  { description: "A reference to an owner object; when all owners are gone the object is garbage collected." },
);

const ManagedFieldsEntrySchema = Type.Object(
  {
    manager: Type.Optional(Type.String({ description: "Identifier of the workflow managing these fields." })),
    operation: Type.Optional(Type.String({ description: "Apply or Update." })),
    apiVersion: Type.Optional(Type.String({ description: "Group/version the field set applies to." })),
    time: Type.Optional(Type.String({ format: "date-time", description: "When the entry was last changed." })),
    fieldsType: Type.Optional(Type.String({ description: "Always FieldsV1." })),
    fieldsV1: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: "The field set in FieldsV1 format." }),
    ),
    subresource: Type.Optional(Type.String({ description: "Subresource used for the update, or empty." })),
  },
  { description: "Which manager owns which fields." },
);

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const ObjectMetaSchema = Type.Object(
  {
    name: Type.Optional(
      Type.String({ description: "Unique name within the namespace (or cluster). Cannot be updated." }),
    ),
    generateName: Type.Optional(
      Type.String({ description: "Prefix for a server-generated name, used only when name is empty." }),
    ),
    namespace: Type.Optional(Type.String({ description: "Namespace of a namespaced object. Cannot be updated." })),
    selfLink: Type.Optional(Type.String({ description: "Deprecated; never populated." })),
    uid: Type.Optional(Type.String({ description: "Server-generated unique identifier. Read-only." })),
    resourceVersion: Type.Optional(
      Type.String({ description: "Opaque version for optimistic concurrency and watches. Read-only." }),
    ),
    generation: Type.Optional(Type.Integer({ description: "Sequence number of the desired state. Read-only." })),
    creationTimestamp: Type.Optional(
      Nullable(Type.String({ format: "date-time", description: "When the object was created. Read-only." })),
    ),
    deletionTimestamp: Type.Optional(
      Nullable(Type.String({ format: "date-time", description: "When graceful deletion was requested. Read-only." })),
    ),
    deletionGracePeriodSeconds: Type.Optional(
      Type.Union([Type.Integer(), Type.Null()], {
        description: "Seconds allowed for graceful termination. Read-only.",
      }),
    ),
    labels: Type.Optional(StringMap("Key/value pairs for organising and selecting objects.")),
    annotations: Type.Optional(StringMap("Unstructured key/value metadata; not queryable.")),
    ownerReferences: Type.Optional(
      Type.Array(OwnerReferenceSchema, {
        description: "Objects this one depends on (keyed by uid).",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["uid"],
      }),
    ),
    finalizers: Type.Optional(
      Type.Array(Type.String(), {
        description: "Must be empty before the object is removed from the store.",
        "x-kubernetes-list-type": "set",
      }),
    ),
    managedFields: Type.Optional(
      Type.Array(ManagedFieldsEntrySchema, { description: "Which manager owns which fields (internal housekeeping)." }),
    ),
  },
  { description: "Standard object metadata." },
);

/** The top-level shape of an object of `kind`, with the kind's spec and status. */
export function objectSchema(
  kind: string,
  description: string,
  spec: TObject,
  status: TObject | undefined,
  extra: TProperties = {},
): TObject {
  return Type.Object(
    {
      apiVersion: Type.Optional(Type.String({ description: "Always management.platform/v1." })),
      kind: Type.Optional(Type.String({ description: `Always ${kind}.` })),
      metadata: Type.Optional(ObjectMetaSchema),
      spec: Type.Optional(spec),
      ...(status ? { status: Type.Optional(status) } : {}),
      ...extra,
    },
    { description, $id: `com.platform.management.v1.${kind}` },
  );
}
