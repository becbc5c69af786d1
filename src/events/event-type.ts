import { Type } from "@sinclair/typebox";
import type { KubeObject } from "../api/object.js";
import { ObjectMetaSchema } from "../api/schema/meta.js";
import type { ResourceType } from "../registry/resource-type.js";

/** Which object an Event is about (core v1 ObjectReference). */
export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
}

const ObjectReference = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    namespace: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    resourceVersion: Type.Optional(Type.String()),
    fieldPath: Type.Optional(Type.String()),
  },
  { description: "The object this event is about." },
);

const EventSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String({ description: "Always v1." })),
    kind: Type.Optional(Type.String({ description: "Always Event." })),
    metadata: Type.Optional(ObjectMetaSchema),
    involvedObject: ObjectReference,
    reason: Type.Optional(Type.String({ description: "Short, machine-readable cause, e.g. NotReady." })),
    message: Type.Optional(Type.String({ description: "What happened, for a person." })),
    type: Type.Optional(Type.String({ description: "Normal or Warning." })),
    count: Type.Optional(Type.Integer({ description: "How many times it happened." })),
    firstTimestamp: Type.Optional(Type.String({ description: "When it first happened." })),
    lastTimestamp: Type.Optional(Type.String({ description: "When it last happened." })),
    eventTime: Type.Optional(Type.String({ description: "When it first happened (microseconds)." })),
    source: Type.Optional(Type.Object({ component: Type.Optional(Type.String()), host: Type.Optional(Type.String()) })),
    reportingComponent: Type.Optional(Type.String({ description: "Always platform." })),
    reportingInstance: Type.Optional(Type.String({ description: "The replica that wrote it." })),
    action: Type.Optional(Type.String({ description: "What the platform did." })),
  },
  { description: "An Event is a report of something the platform did or found about one of its objects." },
);

const ref = (o: KubeObject) => (o.involvedObject ?? {}) as Partial<InvolvedObject> & Record<string, unknown>;
const text = (v: unknown) => (typeof v === "string" ? v : undefined);

/**
 * Core `v1` Event, served under `/api/v1` by the generic handler (with the reader filter of
 * event-visibility.ts): only the platform writes them, so the API serves get, list and watch alone.
 */
export const eventResource: ResourceType = {
  group: "",
  version: "v1",
  kind: "Event",
  listKind: "EventList",
  plural: "events",
  singular: "event",
  shortNames: ["ev"],
  categories: [],
  namespaced: true,
  verbs: ["get", "list", "watch"],
  hasStatus: false,
  schema: EventSchema,
  description: "An Event is a report of something the platform did or found about one of its objects.",
  strategy: {},
  // kube-apiserver's field selectors on Events (kubectl describe and kubectl events use them).
  fieldSelectors: {
    "involvedObject.kind": (o) => text(ref(o).kind) ?? "",
    "involvedObject.namespace": (o) => text(ref(o).namespace) ?? "",
    "involvedObject.name": (o) => text(ref(o).name) ?? "",
    "involvedObject.uid": (o) => text(ref(o).uid) ?? "",
    "involvedObject.apiVersion": (o) => text(ref(o).apiVersion) ?? "",
    "involvedObject.resourceVersion": (o) => text(ref(o).resourceVersion) ?? "",
    "involvedObject.fieldPath": (o) => text(ref(o).fieldPath) ?? "",
    reason: (o) => text(o.reason) ?? "",
    reportingComponent: (o) => text(o.reportingComponent) ?? "",
    source: (o) => text((o.source as { component?: string } | undefined)?.component) ?? "",
    type: (o) => text(o.type) ?? "",
  },
  // The columns of `kubectl get events`.
  columns: [
    {
      name: "Last Seen",
      type: "date",
      description: "When it last happened.",
      priority: 0,
      cell: (o) => o.lastTimestamp ?? o.eventTime,
    },
    { name: "Type", type: "string", description: "Normal or Warning.", priority: 0, cell: (o) => o.type },
    { name: "Reason", type: "string", description: "Why.", priority: 0, cell: (o) => o.reason },
    {
      name: "Object",
      type: "string",
      description: "The object it is about.",
      priority: 0,
      cell: (o) => `${String(ref(o).kind ?? "").toLowerCase()}/${ref(o).name ?? ""}`,
    },
    { name: "Message", type: "string", description: "What happened.", priority: 0, cell: (o) => o.message },
  ],
};
