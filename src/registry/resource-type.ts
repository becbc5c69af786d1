import type { TObject } from "@sinclair/typebox";
import type { ApiError, FieldError } from "../api/errors.js";
import type { KubeObject } from "../api/object.js";
import type { KeptKeys } from "./kept-keys.js";
import type { ConsolePresentation } from "./presentation.js";
import type { RequestContext, UserInfo } from "./request-context.js";

export type Verb = "create" | "get" | "list" | "watch" | "update" | "patch" | "delete" | "deletecollection";

export const ALL_VERBS: readonly Verb[] = [
  "create",
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "update",
  "watch",
];

/** One column of `kubectl get` output (meta.k8s.io/v1 TableColumnDefinition plus how to compute the cell). */
export interface TableColumn {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  format?: string;
  description: string;
  /** 0: always shown; 1: only with `-o wide`. */
  priority: 0 | 1;
  cell(obj: KubeObject): unknown;
}

/**
 * What a prepare step hands to the rest of the same write: field errors it found while
 * normalising (reported with validation's, in one 422), and for a create what the caller
 * is shown once the object is stored (a generated key, revealed only in the create response).
 */
export interface Prepared {
  fieldErrors?: FieldError[];
  /** After a successful create (not dry-run): the response, from the object as it is shown. */
  reveal?(created: KubeObject): KubeObject;
  /**
   * Kept entries (kept-keys.ts) a create writes in the same storage transaction as the object:
   * both are stored or neither (a virtual cluster instance and the CA the platform made for it).
   */
  alongside?: KeptWrite[];
}

/** A kept entry created in a registry transaction; `onExists` is the error when one is kept for the id already. */
export interface KeptWrite {
  keys: KeptKeys;
  id: string;
  value: string;
  onExists: () => ApiError;
}

/**
 * The per-kind policy the generic store calls in a fixed order, inside the write pipeline
 * (store.ts): prepareForCreate/prepareForUpdate (mutate: clear status, normalise) → validate
 * (never mutates) → warnings. toStorage/fromStorage translate between the API form and the
 * stored form (encryption at rest, key hashing); present() hides fields from a reader.
 */
export interface Strategy {
  /**
   * Called on create after metadata is set by the store and mutating admission ran. May mutate.
   * Cheap: a body the schema refuses runs it too, so that its 422 lists the kind's own errors.
   */
  prepareForCreate?(obj: KubeObject, ctx: RequestContext): Prepared | undefined | Promise<Prepared | undefined>;
  /**
   * What a create makes that costs (a certificate authority): called right after
   * prepareForCreate, but never for a body the schema refuses, whose refusal would throw it away.
   * May mutate `obj`; returns the kept entries written beside it (Prepared.alongside).
   */
  issueForCreate?(obj: KubeObject, ctx: RequestContext): Promise<KeptWrite[]>;
  /** Called on update (PUT/PATCH of the main resource). May mutate `obj`. */
  prepareForUpdate?(
    obj: KubeObject,
    old: KubeObject,
    ctx: RequestContext,
  ): Prepared | undefined | Promise<Prepared | undefined>;
  /**
   * Called on a write of the status subresource, after the stored object's status was replaced
   * by the one sent. May mutate `obj.status`: as kube's status strategies, it puts back the fields
   * only the server writes (virtual-cluster-instance.ts, space-instance.ts).
   */
  prepareForStatusUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): void;
  /** Field errors of a new object. Never mutates. */
  validate?(obj: KubeObject, ctx: RequestContext): FieldError[] | Promise<FieldError[]>;
  /** Field errors of an update. Never mutates. Defaults to validate(obj). */
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: RequestContext): FieldError[] | Promise<FieldError[]>;
  /** Warnings to send as `Warning: 299` headers. */
  warnings?(obj: KubeObject, old: KubeObject | undefined): string[];
  /** API form → stored form (e.g. encrypt secret data). Must not mutate its argument. */
  toStorage?(obj: KubeObject): KubeObject;
  /** Stored form → API form (e.g. decrypt). Must not mutate its argument. */
  fromStorage?(obj: KubeObject): KubeObject;
  /** What a particular reader may see of an object (e.g. hide secret data from viewers). May return the same object. */
  present?(obj: KubeObject, ctx: RequestContext): KubeObject;
}

/** How a list field merges: keyed by some fields, a set of scalars, or replaced whole. */
export type ListType = { type: "map"; keys: string[] } | { type: "set" } | { type: "atomic" };

export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  verbs: readonly Verb[];
  /** Whether `/status` is served (the main endpoint then keeps status as it was). */
  hasStatus: boolean;
  /** The full object schema (apiVersion, kind, metadata, spec, status…). */
  schema: TObject;
  /** Field descriptions for `kubectl explain` live in the schema; this is its short description. */
  description: string;
  strategy: Strategy;
  columns: TableColumn[];
  /** The rule for metadata.name (default: a DNS-1123 subdomain, 253 characters). */
  names?: { format: "subdomain" | "label"; maxLength?: number };
  /** Extra field selectors beyond metadata.name / metadata.namespace. */
  fieldSelectors?: Record<string, (obj: KubeObject) => string | undefined>;
  /**
   * Kinds whose objects are not stored (selves, tokens): POST is answered by this handler
   * with the body already admitted (kind, apiVersion, schema), and no other verb is served.
   */
  virtualCreate?: (body: KubeObject, ctx: RequestContext) => Promise<KubeObject>;
  /**
   * Which objects a reader sees, decided per object beyond the authorizer's rules on this kind
   * (an Event: only by whoever may get the object it is about). Built once per request. Lists
   * and watches leave the others out (a limited list then has no remainingItemCount: it would
   * count them), a get of one answers 404 as if it did not exist. For read-only kinds (get,
   * list, watch): the Registry refuses it beside a write verb, which would bypass it.
   */
  readerFilter?: (user: UserInfo) => ReaderFilter;
  /**
   * Whether its objects carry `spec.access[]` rules the authorizer honours (docs/permissions.md).
   * defineKind (kinds/define.ts) reads it from the schema: a kind with `spec.access` has them.
   */
  accessRules?: boolean;
  /** Whether its objects name an owner in `spec.owner` (a user or team the writer must see); from the schema too. */
  owner?: boolean;
  /**
   * Its objects are a project's instances (virtual clusters, spaces): they live in the project's
   * namespace `p-<project>` and run on one of its clusters (`spec.clusterRef.cluster`). The
   * project must exist and allow the cluster, and owns them (admission/project-instances.ts); its
   * members manage them (the authorizer); the writer needs `use` on the cluster (admission/references.ts).
   */
  projectInstance?: boolean;
  /**
   * Its objects belong to a project without running on a cluster (project secrets): they live in
   * the project's namespace `p-<project>`, the project must exist and owns them
   * (admission/project-instances.ts), and its members manage them (the authorizer).
   */
  projectNamespaced?: boolean;
  /**
   * Dotted paths of secret values (`spec.data`: every value under it). The audit log keeps no
   * bodies of such a kind, and the console masks them in its YAML panel and editors.
   */
  secretFields?: readonly string[];
  /** How the web console shows the kind; absent: the console does not list it. */
  console?: ConsolePresentation;
}

/** Whether one reader sees one object (ResourceType.readerFilter); may read other objects to tell. */
export type ReaderFilter = (obj: KubeObject) => Promise<boolean>;

/** The verbs a kind with a readerFilter may serve. */
export const READ_VERBS: readonly Verb[] = ["get", "list", "watch"];

/** `group/version`, or `v1` alone for the core group (""), as Kubernetes writes apiVersion. */
export function apiVersionOf(rt: Pick<ResourceType, "group" | "version">): string {
  return rt.group ? `${rt.group}/${rt.version}` : rt.version;
}

export function groupResource(rt: Pick<ResourceType, "group" | "plural">): { group: string; resource: string } {
  return { group: rt.group, resource: rt.plural };
}
