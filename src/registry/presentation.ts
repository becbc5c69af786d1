/**
 * How the web console shows a kind (ResourceType.console), declared in the kind's folder and
 * served to the console by `/console/api/kinds` (src/console/console-kinds.ts).
 */
export interface ConsolePresentation {
  /** Shown in menus and headings ("Shared secrets"). */
  title: string;
  /** Where the console creates new objects of a namespaced kind. */
  defaultNamespace?: string;
  /** The fields its form edits, in order. */
  fields: readonly ConsoleField[];
  /**
   * The kind's Table columns (by name, ResourceType.columns) its list shows besides the name,
   * namespace, display name and age, in order; the cells are the server's.
   */
  columns: readonly string[];
}

/** One field of the console's form; `path` is dotted from the object root. */
export interface ConsoleField {
  path: string;
  label: string;
  /** The input: a line, a box, a comma-separated list, a checkbox, a number, cluster roles, project members. */
  type: "text" | "textarea" | "list" | "bool" | "number" | "roles" | "members";
  help?: string;
  /** The field is this annotation (`path` is then `metadata.annotations`, naming it for error messages). */
  annotation?: string;
}
