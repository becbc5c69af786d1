import { expiryOf } from "./api/access-key-facts";
import type { KubeObject } from "./api/types";

/** How a form shows one field; `path` is dotted from the object root. */
export interface FieldDef {
  path: string;
  label: string;
  type: "text" | "textarea" | "list" | "bool" | "number" | "roles" | "members";
  help?: string;
  /** The field is this annotation (`path` then only names it for error messages). */
  annotation?: string;
}

/** A list column; its label is the name of the server's Table column it shows (console-kinds.test.ts). */
export interface Column {
  label: string;
  value: (o: KubeObject) => string;
}

export interface KindInfo {
  plural: string;
  kind: string;
  /** Shown in menus and headings. */
  title: string;
  namespaced: boolean;
  /** Where new objects go (namespaced kinds). */
  defaultNamespace?: string;
  fields: FieldDef[];
  columns: Column[];
  /** Has spec.access[] rules. */
  access: boolean;
}

const common: FieldDef[] = [
  { path: "spec.displayName", label: "Display name", type: "text" },
  { path: "spec.description", label: "Description", type: "textarea" },
];

const list = (o: KubeObject, key: string): string => ((o.spec?.[key] as string[] | undefined) ?? []).join(", ");

/** A project secret's source shared secret as `namespace/name` ("" without one). */
export function sourceOf(o: KubeObject): string {
  const ref = o.spec?.source?.sharedSecret as { name?: string; namespace?: string } | undefined;
  return ref?.name ? `${ref.namespace || "platform"}/${ref.name}` : "";
}

export const KINDS: KindInfo[] = [
  {
    plural: "teams",
    kind: "Team",
    title: "Teams",
    namespaced: false,
    access: true,
    fields: [
      ...common,
      { path: "spec.users", label: "Members (user names)", type: "list" },
      { path: "spec.groups", label: "Identity-provider groups", type: "list" },
      { path: "spec.clusterRoles", label: "Cluster roles", type: "roles" },
    ],
    columns: [{ label: "Users", value: (o) => list(o, "users") }],
  },
  {
    plural: "users",
    kind: "User",
    title: "Users",
    namespaced: false,
    access: false,
    fields: [
      ...common,
      { path: "spec.email", label: "E-mail", type: "text" },
      { path: "spec.username", label: "Username", type: "text" },
      { path: "spec.groups", label: "Identity-provider groups", type: "list" },
      { path: "spec.clusterRoles", label: "Cluster roles", type: "roles" },
      { path: "spec.disabled", label: "Disabled", type: "bool" },
    ],
    columns: [
      { label: "Email", value: (o) => String(o.spec?.email ?? "") },
      { label: "Teams", value: (o) => ((o.status?.teams as string[] | undefined) ?? []).join(", ") },
    ],
  },
  {
    plural: "clusters",
    kind: "Cluster",
    title: "Clusters",
    namespaced: false,
    access: true,
    fields: [
      ...common,
      { path: "spec.config.secretName", label: "Kube config shared secret", type: "text" },
      { path: "spec.config.secretNamespace", label: "Its namespace", type: "text", help: "default: platform" },
      {
        path: "metadata.annotations",
        annotation: "management.platform/ingress-suffix",
        label: "Ingress suffix for virtual clusters",
        type: "text",
        help: "kube config downloads of its virtual clusters point at https://INSTANCE-PROJECT.SUFFIX (needed for them)",
      },
      {
        path: "metadata.annotations",
        annotation: "management.platform/direct-cluster-endpoint",
        label: "Agent URL (optional)",
        type: "text",
        help: "where `platform agent` beside the cluster listens, for direct connections",
      },
    ],
    columns: [
      { label: "Phase", value: (o) => String(o.status?.phase ?? "") },
      { label: "Reason", value: (o) => String(o.status?.reason ?? "") },
    ],
  },
  {
    plural: "sharedsecrets",
    kind: "SharedSecret",
    title: "Shared secrets",
    namespaced: true,
    defaultNamespace: "platform",
    access: true,
    fields: [...common],
    columns: [{ label: "Keys", value: (o) => Object.keys(o.spec?.data ?? {}).join(", ") }],
  },
  {
    plural: "projects",
    kind: "Project",
    title: "Projects",
    namespaced: false,
    access: true,
    fields: [...common, { path: "spec.members", label: "Members", type: "members" }],
    columns: [],
  },
  {
    plural: "virtualclusterinstances",
    kind: "VirtualClusterInstance",
    title: "Virtual clusters",
    namespaced: true,
    access: true,
    fields: [
      ...common,
      { path: "spec.clusterRef.cluster", label: "Cluster", type: "text" },
      { path: "spec.clusterRef.namespace", label: "Namespace on the cluster", type: "text" },
    ],
    columns: [
      { label: "Cluster", value: (o) => String(o.spec?.clusterRef?.cluster ?? "") },
      { label: "Phase", value: (o) => String(o.status?.phase ?? "") },
    ],
  },
  {
    plural: "projectsecrets",
    kind: "ProjectSecret",
    title: "Project secrets",
    namespaced: true,
    access: true,
    fields: [
      ...common,
      {
        path: "spec.source.sharedSecret.name",
        label: "Source: shared secret",
        type: "text",
        help: "optional: the platform keeps the values equal to it",
      },
      {
        path: "spec.source.sharedSecret.namespace",
        label: "Source namespace",
        type: "text",
        help: "default: platform",
      },
      { path: "spec.source.keys", label: "Source keys", type: "list", help: "empty: every key" },
    ],
    columns: [
      { label: "Keys", value: (o) => Object.keys(o.spec?.data ?? {}).join(", ") },
      { label: "Source", value: sourceOf },
    ],
  },
  {
    plural: "ownedaccesskeys",
    kind: "OwnedAccessKey",
    title: "Access keys",
    namespaced: false,
    access: false,
    fields: [...common],
    columns: [
      { label: "Subject", value: (o) => String(o.spec?.user ?? o.spec?.team ?? o.spec?.subject ?? "") },
      { label: "Type", value: (o) => String(o.spec?.type || "User") },
      { label: "Disabled", value: (o) => (o.spec?.disabled === true ? "yes" : "") },
      { label: "Expires", value: expiryOf },
      { label: "Last Activity", value: (o) => String(o.status?.lastActivity ?? "never") },
    ],
  },
];

export function kindOf(plural: string): KindInfo | undefined {
  return KINDS.find((k) => k.plural === plural);
}

export function displayName(o: KubeObject): string {
  return String(o.spec?.displayName ?? "");
}
