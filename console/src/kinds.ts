import { request } from "./api/client";
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

/**
 * A kind as the server declares it for the console (`GET /console/api/kinds`, from the kind's
 * own folder on the server): the console keeps no table of kinds of its own.
 */
export interface KindInfo {
  plural: string;
  kind: string;
  /** Shown in menus and headings. */
  title: string;
  namespaced: boolean;
  /** Where new objects go (namespaced kinds). */
  defaultNamespace?: string;
  fields: FieldDef[];
  /** The kind's Table columns its list shows (by name; the server computes the cells). */
  columns: string[];
  /** Has spec.access[] rules. */
  access: boolean;
  /** Dotted paths of secret values, masked wherever the console shows the object. */
  secretFields: string[];
}

let kinds: KindInfo[] = [];

/** Asks the server which kinds there are; called once signed in, before any page is shown. */
export async function loadKinds(): Promise<KindInfo[]> {
  kinds = (await request<{ kinds: KindInfo[] }>("GET", "/console/api/kinds")).kinds;
  return kinds;
}

/** The kinds in the server's registration order (empty until loadKinds). */
export function allKinds(): readonly KindInfo[] {
  return kinds;
}

export function kindOf(plural: string): KindInfo | undefined {
  return kinds.find((k) => k.plural === plural);
}

/** The kind of an object, by its `kind` field. */
export function kindOfObject(o: KubeObject): KindInfo | undefined {
  return kinds.find((k) => k.kind === o.kind);
}

export function displayName(o: KubeObject): string {
  return String(o.spec?.displayName ?? "");
}
