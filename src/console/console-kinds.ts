import type { ConsoleField } from "../registry/presentation.js";
import type { ResourceType } from "../registry/resource-type.js";

/**
 * One kind as the web console shows it (`GET /console/api/kinds`): what the kind's folder
 * declares (ResourceType.console, accessRules, secretFields), so the console keeps no table of
 * kinds of its own. The console reads the cells of `columns` from the server's Table.
 */
export interface ConsoleKind {
  plural: string;
  kind: string;
  namespaced: boolean;
  title: string;
  defaultNamespace?: string;
  /** Whether objects carry spec.access[] rules (the console then offers their editor). */
  access: boolean;
  fields: readonly ConsoleField[];
  columns: readonly string[];
  /** Dotted paths whose values the console masks. */
  secretFields: readonly string[];
}

/** The registered kinds that declare a console presentation, in registration order. */
export function consoleKinds(kinds: readonly ResourceType[]): ConsoleKind[] {
  return kinds.flatMap((rt) => {
    if (!rt.console) return [];
    const { title, defaultNamespace, fields, columns } = rt.console;
    return [
      {
        plural: rt.plural,
        kind: rt.kind,
        namespaced: rt.namespaced,
        title,
        ...(defaultNamespace ? { defaultNamespace } : {}),
        access: rt.accessRules === true,
        fields,
        columns,
        secretFields: rt.secretFields ?? [],
      },
    ];
  });
}
